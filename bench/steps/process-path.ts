import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchema, tool } from 'ai';
import { droppedByReason, type TokenCounter } from '../../src/core/index.ts';
import { defineAgent } from '../../src/runtime/agents/define-agent.ts';
import { SqliteSaver } from '../../src/runtime/checkpoint/sqlite-saver.ts';
import { scriptedModel } from '../../src/runtime/processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../../src/runtime/processes/sequential.ts';
import { createCheckpointSessionStore, createSessionEngine } from '../../src/session/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import { type LoggedCall, loggedCall, matchLogged, type NotebookCall } from './notebook-path.ts';
import { toRecorded } from './session.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const SESSION = 'raft-consensus';

/** What {@link runProcessPath} measured. */
export interface ProcessRun {
  calls: NotebookCall[];
  /** History messages an agent call's report left neither sent, summarised, recalled nor recallable. */
  unaccounted: number;
  /** CPU time of each turn (ms), the run's whole process (the agent, the engine, the checkpoints). */
  turnCpuMs: number[];
  /** Wall time of each turn (ms), from `runTurn` to its answer stored. */
  turnWallMs: number[];
  /**
   * Each turn's largest reader call record, as JSON (bytes of UTF-8), and its history's dropped
   * entries; empty unless `measureRecords` (the serialising is garbage the next turn would pay for).
   */
  records: { bytes: number; historyDropped: number }[];
}

/** What a long session's report may say of a history message it does not send (decision 040). */
const ACCOUNTED = new Set(['summarized', 'recalled', 'recallable']);

/**
 * The same session through a process turn — `engine.runTurn` on a session whose turns run a
 * LangGraph process (decision 066): one `reader` agent (`defineAgent`, a `read_file` tool over
 * the files, up to 6 steps) in a sequential process on a SQLite checkpoint thread, on a copy of
 * `examples/notebook`. A recording provider reads files on the fixed script, then answers with
 * the LoCoMo reply. Each provider call is matched with the agent call the engine logged.
 */
export async function runProcessPath(input: {
  counter: TokenCounter;
  turns: { user: string; reply: string }[];
  files: { path: string; text: string }[];
  window: number;
  reads: (turn: number) => number;
  /** Serialise each turn's reader records to measure them (`records`; else empty): the long run's. */
  measureRecords?: boolean;
  /** Sees each prompt as the provider received it (diagnostics: where consecutive calls differ). */
  onPrompt?: (turn: number, prompt: readonly unknown[]) => void;
}): Promise<ProcessRun> {
  const root = await mkdtemp(join(tmpdir(), 'ctxloom-bench-process-'));
  const saver = new SqliteSaver({ path: join(root, 'sessions.db'), durability: 'normal' });
  try {
    await cp(EXAMPLE, root, { recursive: true });
    const path = join(root, SESSION, 'context-config.json');
    const config = JSON.parse(await readFile(path, 'utf8'));
    config.budget.window = input.window;
    await writeFile(path, JSON.stringify(config, null, 2));
    const files = new Map(input.files.map((file) => [file.path.replaceAll('/', '-'), file.text]));
    const names = [...files.keys()];
    let turn = 0;
    let readsDone = 0;
    let cursor = 0;
    const sent: { turn: number; tokens: number; call: NotebookCall['sent'] }[] = [];
    const model = scriptedModel((params) => {
      input.onPrompt?.(turn, params.prompt);
      const recorded = toRecorded(params, input.counter);
      sent.push({ turn, tokens: recorded.tokens, call: recorded.call });
      if (readsDone < input.reads(turn)) {
        readsDone++;
        const file = names[cursor++ % names.length];
        const call = JSON.stringify({ path: file });
        return [
          { type: 'tool-call', toolCallId: `t${turn}-${readsDone}`, toolName: 'read_file', input: call },
        ];
      }
      return [{ type: 'text', text: input.turns[turn]?.reply ?? 'ok' }];
    });
    const store = createCheckpointSessionStore({ saver, threadIdOf: (id) => `${id}-bench` });
    const reader = defineAgent({
      id: 'reader',
      systemPrompt: 'You are a helpful assistant who reads the session’s files when asked.',
      model,
      maxSteps: 6,
      tools: {
        read_file: tool({
          description: 'Read a file of the session',
          inputSchema: jsonSchema<{ path: string }>({
            type: 'object',
            properties: { path: { type: 'string' } },
            required: ['path'],
          }),
          execute: async ({ path: file }) => files.get(file) ?? `no file ${file}`,
        }),
      },
    });
    const graph = createSequentialProcess({
      counter: input.counter,
      blackboard: store.blackboard,
      agents: [reader],
    }).compile({ checkpointer: saver });
    const engine = createSessionEngine({
      workspace: openWorkspace({ root }),
      store,
      counter: input.counter,
      process: {
        graph,
        preview: async () => {
          throw new Error('the bench previews nothing');
        },
      },
    });
    // What the run reads of each reader call, not the record (each holds its whole report).
    const logged: LoggedCall[] = [];
    let unaccounted = 0;
    const turnCpuMs: number[] = [];
    const turnWallMs: number[] = [];
    const records: ProcessRun['records'] = [];
    for (turn = 0; turn < input.turns.length; turn++) {
      readsDone = 0;
      const before = sent.length;
      const cpu = process.cpuUsage();
      const started = performance.now();
      const running = await engine.runTurn({ sessionId: SESSION, text: input.turns[turn]?.user ?? '' });
      for await (const _chunk of running.stream) {
        // read to the end: the answer is stored before `finish`
      }
      await running.stored;
      const used = process.cpuUsage(cpu);
      turnCpuMs.push((used.user + used.system) / 1000);
      turnWallMs.push(performance.now() - started);
      // The turn's reader calls (a summariser's calls are logged too, under their own id).
      // Only the turn's records (and a few more: a summariser's calls are logged too): a call
      // record holds the call's whole report, and cloning the log every turn would fill the
      // next turns' CPU time with the bench's own garbage.
      const calls = await engine.listCalls(SESSION, { limit: sent.length - before + 4 });
      const largest = { bytes: 0, historyDropped: 0 };
      for (const call of calls) {
        if (call.turnId !== running.userMessageId || call.agentId !== 'reader') continue;
        logged.push(loggedCall(call));
        const history = call.report.layers.find((layer) => layer.layer === 'history');
        const bytes = input.measureRecords === true ? Buffer.byteLength(JSON.stringify(call)) : 0;
        if (bytes > largest.bytes) {
          largest.bytes = bytes;
          largest.historyDropped = history?.dropped.length ?? 0;
        }
        for (const tally of droppedByReason(history ?? { dropped: [] }))
          if (!ACCOUNTED.has(tally.reason.type)) unaccounted += tally.count;
      }
      // The recording provider keeps every prompt it received (`calls`, and the mock's own
      // `doStreamCalls`); `sent` holds what the run compares. Kept, they would grow the heap
      // by the whole session's prompts and bill later turns for collecting the bench's memory.
      model.calls.length = 0;
      model.doStreamCalls.length = 0;
      model.doGenerateCalls.length = 0;
      if (input.measureRecords === true) records.push(largest);
    }
    return { calls: matchLogged(sent, logged), unaccounted, turnCpuMs, turnWallMs, records };
  } finally {
    await saver.close();
    await rm(root, { recursive: true, force: true });
  }
}
