import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { countCallTokens } from '../../src/ai-sdk/index.ts';
import type { TokenCounter } from '../../src/core/index.ts';
import { type CallRecord, createFileSessionStore, createSessionEngine } from '../../src/session/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import type { RecordedCall } from './cache-share.ts';
import { readsOf, toRecorded } from './session.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const SESSION = 'raft-consensus';

/** One model call of the notebook path: what the provider received, and the call the engine logged. */
export interface NotebookCall {
  turn: number;
  sentTokens: number;
  loggedTokens: number | undefined;
  inputBudget: number | undefined;
  /** True when the session's cut moved before this call (its report's `compacted` action). */
  moved: boolean;
  /** The call as the provider received it (for the cache model). */
  sent: RecordedCall;
}

/** What the bench reads of a logged call: kept instead of the record (a record holds its whole report). */
export interface LoggedCall {
  totalTokens: number;
  inputBudget: number;
  moved: boolean;
}

/** The parts of `record` {@link matchLogged} reads. */
export function loggedCall(record: CallRecord): LoggedCall {
  return {
    totalTokens: record.report.totalTokens,
    inputBudget: record.report.inputBudget,
    moved: record.report.compaction.some((action) => action.type === 'compacted'),
  };
}

/** Each call the provider received, with the call the engine logged for it (in order). */
export function matchLogged(
  sent: readonly { turn: number; tokens: number; call: RecordedCall }[],
  logged: readonly LoggedCall[],
): NotebookCall[] {
  return sent.map((call, index) => ({
    turn: call.turn,
    sentTokens: call.tokens,
    loggedTokens: logged[index]?.totalTokens,
    inputBudget: logged[index]?.inputBudget,
    moved: logged[index]?.moved === true,
    sent: call.call,
  }));
}

/**
 * The same 50-turn tool session through the notebook's chat path — `engine.runTurn`, as the
 * HTTP chat route calls it — on a copy of `examples/notebook` (16k window) with the files
 * written into the session folder, the real workspace tools, and a recording provider that
 * reads files on the fixed script, then answers with the LoCoMo reply. Each provider call is
 * matched with the call the engine logged before sending it.
 */
export async function runNotebookPath(input: {
  counter: TokenCounter;
  turns: { user: string; reply: string }[];
  files: { path: string; text: string }[];
  /** The session's window (the manifest's `budget.window`); default the example's 16,000. */
  window?: number;
  /** Reads per turn; default {@link readsOf}. */
  reads?: (turn: number) => number;
  /** Sees each prompt as the provider received it (diagnostics: where consecutive calls differ). */
  onPrompt?: (turn: number, prompt: readonly unknown[]) => void;
}): Promise<NotebookCall[]> {
  const reads = input.reads ?? readsOf;
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-bench-steps-'));
  try {
    await cp(EXAMPLE, root, { recursive: true });
    if (input.window !== undefined) {
      const path = join(root, SESSION, 'context-config.json');
      const config = JSON.parse(await readFile(path, 'utf8'));
      config.budget.window = input.window;
      await writeFile(path, JSON.stringify(config, null, 2));
    }
    const names = input.files.map((file) => file.path.replaceAll('/', '-'));
    for (const [index, file] of input.files.entries()) {
      await writeFile(join(root, SESSION, names[index] as string), file.text);
    }
    let turn = 0;
    let readsDone = 0;
    let cursor = 0;
    const sent: { turn: number; tokens: number; call: RecordedCall }[] = [];
    const usage = {
      inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 0, text: 0, reasoning: 0 },
    };
    const provider = new MockLanguageModelV4({
      doStream: async (params) => {
        input.onPrompt?.(turn, params.prompt);
        sent.push({
          turn,
          tokens: countCallTokens(params, input.counter),
          call: toRecorded(params, input.counter).call,
        });
        let chunks: LanguageModelV4StreamPart[];
        if (readsDone < reads(turn)) {
          readsDone++;
          const path = names[cursor++ % names.length];
          chunks = [
            { type: 'stream-start', warnings: [] },
            {
              type: 'tool-call',
              toolCallId: `t${turn}-${readsDone}`,
              toolName: 'read_file',
              input: JSON.stringify({ path }),
            },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
          ];
        } else {
          const reply = input.turns[turn]?.reply ?? 'ok';
          chunks = [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 'a' },
            { type: 'text-delta', id: 'a', delta: reply },
            { type: 'text-end', id: 'a' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ];
        }
        return { stream: simulateReadableStream({ chunks }) };
      },
    });
    const workspace = openWorkspace({ root });
    const store = createFileSessionStore({ workspace });
    const engine = createSessionEngine({
      workspace,
      store,
      model: { model: provider, spec: 'recording', offline: false },
      maxSteps: 6,
    });
    const logged: LoggedCall[] = [];
    for (turn = 0; turn < input.turns.length; turn++) {
      readsDone = 0;
      const result = await engine.runTurn({ sessionId: SESSION, text: input.turns[turn]?.user ?? '' });
      for await (const _chunk of result.stream) {
        // read to the end: the answer is stored before `finish`
      }
      const calls = await engine.listCalls(SESSION);
      // The turn's chat calls; a summariser's call (its own, larger window) is logged too.
      logged.push(
        ...calls
          .filter(
            (call) =>
              call.turnId === result.userMessageId && call.report.inputBudget <= (input.window ?? 16_000),
          )
          .map(loggedCall),
      );
    }
    return matchLogged(sent, logged);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
