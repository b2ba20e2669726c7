import type * as Core from '../../src/core/index.ts';
import { loadLocomoTurns } from '../lib/data.ts';

/**
 * The step row's workload (`bench/core`, `bench:ab -- step`): a tool loop over 2,400 short
 * LoCoMo turns, a 128k window and one tool. `createStepCompiler`: the checkout's that runs it.
 */
export function stepWorkload(createStepCompiler: typeof Core.createStepCompiler) {
  const history: Core.Message[] = loadLocomoTurns()
    .slice(0, 2400)
    .map((turn, index) => ({
      id: `m${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: turn.text,
    }));
  const steps: Core.Message[] = [
    ...toolPair('s0', 'First result: the trip is on Friday.'),
    ...toolPair('s1', 'Second result: 3 tickets.'),
  ];
  const tools = [
    {
      name: 'lookup',
      description: 'Look a fact up',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    },
  ];
  return {
    history,
    steps,
    toolPair,
    /** A step compiler of the turn, over `counter`. */
    compiler: (counter: Core.TokenCounter) =>
      createStepCompiler({
        request: { systemPrompt: 'You are a helpful assistant.', history, query: 'When is the trip?' },
        options: { counter, window: 128_000, tools },
      }),
  };
}

/** A tool call and its short result, as a step of the loop adds them. */
function toolPair(id: string, text: string): Core.Message[] {
  return [
    {
      id: `${id}:call`,
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: id, toolName: 'lookup', input: { id } }],
    },
    {
      id: `${id}:result`,
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName: 'lookup', output: { type: 'text', value: text } },
      ],
    },
  ];
}
