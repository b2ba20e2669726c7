/**
 * A long session with file reads in a window whose fixed parts leave the history less than a
 * read (not a suite; decision 070): `engine.runTurn` on a copy of `examples/notebook` with the
 * offline model, which reads a file when asked ("Please read guidance.md", every third turn,
 * milestones.md every third) and quotes what came back; the other turns are LoCoMo user turns.
 * Per call: whether a step after a tool call sent its own steps, the outputs kept as artifacts
 * for lack of room, history dropped over budget, and whether each report is what was sent;
 * per turn the CPU time (median of the first and last ten).
 *
 *   TIGHT_WINDOW=3000 TIGHT_TURNS=300 npx node --conditions=ctxloom-source bench/steps/tight-window.ts
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { countCallTokens } from '../../src/ai-sdk/index.ts';
import { createOfflineModel } from '../../src/llm/index.ts';
import { type CallRecord, createFileSessionStore, createSessionEngine } from '../../src/session/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import { loadLongTurns } from './session.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const SESSION = 'raft-consensus';
const window = Number(process.env.TIGHT_WINDOW ?? 3000);
const turns = loadLongTurns(Number(process.env.TIGHT_TURNS ?? 300));
const counter = getTokenCounter('gpt-4o');

const root = await mkdtemp(join(tmpdir(), 'ctxloom-bench-tight-'));
try {
  await cp(EXAMPLE, root, { recursive: true });
  const path = join(root, SESSION, 'context-config.json');
  const config = JSON.parse(await readFile(path, 'utf8'));
  config.budget.window = window;
  await writeFile(path, JSON.stringify(config, null, 2));
  const offline = createOfflineModel();
  const sent: number[] = [];
  const model: LanguageModelV4 = {
    ...offline,
    doGenerate: (options: LanguageModelV4CallOptions) => {
      sent.push(countCallTokens(options, counter));
      return offline.doGenerate(options);
    },
    doStream: (options: LanguageModelV4CallOptions) => {
      sent.push(countCallTokens(options, counter));
      return offline.doStream(options);
    },
  };
  const workspace = openWorkspace({ root });
  const store = createFileSessionStore({ workspace });
  const records: CallRecord[] = [];
  const append = store.appendCall.bind(store);
  store.appendCall = async (id, record) => {
    records.push(record);
    return append(id, record);
  };
  const engine = createSessionEngine({ workspace, store, model: { model, spec: 'offline', offline: true } });
  const turnCpu: number[] = [];
  for (const [turn, { user }] of turns.entries()) {
    const text = ['Please read guidance.md', user, 'Please read milestones.md'][turn % 3] as string;
    const start = process.cpuUsage();
    const running = await engine.runTurn({ sessionId: SESSION, text });
    for await (const _chunk of running.stream) {
      // read to the end: the answer is stored before `finish`
    }
    await running.stored;
    const used = process.cpuUsage(start);
    turnCpu.push((used.user + used.system) / 1000);
  }
  let mismatched = 0;
  let over = 0;
  let steps = 0;
  let stepsWithoutTheirSteps = 0;
  let noRoom = 0;
  let overBudget = 0;
  for (const [index, record] of records.entries()) {
    const { report } = record;
    if (report.totalTokens !== sent[index]) mismatched++;
    if (report.totalTokens > report.inputBudget) over++;
    noRoom += report.compaction.filter(
      (action) => action.type === 'placeholder' && action.reason === 'no-room',
    ).length;
    const history = report.layers.find((layer) => layer.layer === 'history');
    // A step of the turn dropped for room is recallable (`recallTool`): only the others are lost.
    for (const entry of history?.dropped ?? [])
      if (entry.reason.type === 'over-budget' && entry.reason.recallTool === undefined)
        overBudget += entry.run?.count ?? 1;
    if (record.step === 0) continue;
    steps++;
    // The turn's steps are the AI SDK messages of the call (ids `ai:…`).
    if (!(history?.kept ?? []).some((block) => block.id.startsWith('history:ai:'))) stepsWithoutTheirSteps++;
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const first = median(turnCpu.slice(0, 10));
  const last = median(turnCpu.slice(-10));
  console.log(
    `window ${window}, ${turns.length} turns: ${records.length} calls (${sent.length} received), ${over} over budget, ` +
      `${mismatched} reports ≠ sent; ${steps} calls after a tool call, ${stepsWithoutTheirSteps} of them without ` +
      `their turn's steps; ${noRoom} outputs kept as artifacts for no room; ${overBudget} history messages dropped ` +
      `over budget with no way back in all; turn CPU ${first.toFixed(1)} → ${last.toFixed(1)} ms (${(last / first).toFixed(2)}×)`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
