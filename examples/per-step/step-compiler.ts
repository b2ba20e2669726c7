import {
  createStepCompiler,
  type Message,
  OPEN_ARTIFACT_DEFINITION,
  type ReadArtifactInput,
  readArtifact,
  type ToolResultPart,
} from '../../src/core/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import {
  callModel,
  definitions,
  history,
  query,
  reports,
  runTool,
  systemPrompt,
} from './recipe-environment.ts';

const tools = [...definitions, OPEN_ARTIFACT_DEFINITION];
const steps = createStepCompiler({
  request: { systemPrompt, history, query },
  options: { counter: getTokenCounter('gpt-4o'), window: 16_000, tools },
});
const produced: Message[] = [];
for (;;) {
  const { messages, maxOutputTokens, report } = await steps.compile(produced);
  reports.push(report);
  const reply = await callModel({ messages, tools, maxOutputTokens }); // your model call
  if (reply.toolCalls.length === 0) break;
  const results: ToolResultPart[] = [];
  for (const call of reply.toolCalls) {
    const value =
      call.toolName === OPEN_ARTIFACT_DEFINITION.name
        ? readArtifact(steps.store, call.input as ReadArtifactInput).output // a page sized to the room left
        : await runTool(call); // your tools
    results.push({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'text', value },
    });
  }
  produced.push(reply.message, { id: `results-${produced.length}`, role: 'tool', content: results });
}
