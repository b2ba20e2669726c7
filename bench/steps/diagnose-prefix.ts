/**
 * Where consecutive `engine.runTurn` calls stop sharing their prefix (not a suite; decision
 * 063). Runs one session of the cache matrix through the notebook path and prints the share
 * of each call that repeats the previous call's prefix ÷ its ceiling, the moves of the cut,
 * and, by call kind (a step of a turn or a turn's first call, with or without a move of the
 * cut) and by the layer of each message, the tokens sent before that a break lost.
 *
 *   DIAG_KIND=tool-en|tool-zh|plain DIAG_TURNS=100 DIAG_PATH=notebook|process \
 *     npx node --conditions=ctxloom-source bench/steps/diagnose-prefix.ts
 *
 * `DIAG_PATH=process`: the same session through a process turn's agent (`runProcessPath`).
 */
import { withTokenCache } from '../../src/core/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import { heavyReadsOf } from './cache-matrix.ts';
import { sentBefore } from './cache-share.ts';
import { runNotebookPath } from './notebook-path.ts';
import { runProcessPath } from './process-path.ts';
import { loadChineseFiles, loadFiles, loadLongTurns } from './session.ts';

const counter = withTokenCache(createO200kCounter());
const turns = loadLongTurns(Number(process.env.DIAG_TURNS ?? 100));
const kind = process.env.DIAG_KIND ?? 'tool-en';
const files =
  kind === 'tool-zh' ? loadChineseFiles(counter) : loadFiles(counter).filter((file) => file.tokens <= 4500);
/** Per call, the layer each message renders (`<context layer="…">` user text, else its role). */
const layers: string[][] = [];
const layerOf = (message: { role: string; content: unknown }) => {
  const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const layer = /<context layer=\\?"([^"\\]+)/u.exec(text)?.[1];
  if (layer !== undefined) return layer;
  // Before the history a held recall is a system message of recalled lines (`2026-05-08 user: …`).
  if (message.role === 'system' && /^(\d{4}-\d\d-\d\d|#\d+) (user|assistant|tool):/u.test(text))
    return 'held recall';
  return message.role;
};
const run = {
  counter,
  turns,
  files,
  reads: kind === 'plain' ? () => 0 : heavyReadsOf,
  window: kind === 'plain' ? 6000 : 16_000,
  onPrompt: (_turn: number, prompt: readonly unknown[]) => {
    layers.push((prompt as { role: string; content: unknown }[]).map(layerOf));
  },
};
const calls =
  process.env.DIAG_PATH === 'process' ? (await runProcessPath(run)).calls : await runNotebookPath(run);
const start = calls.findIndex((call) => call.moved);
const sent = calls.map((call) => call.sent);
const again = sentBefore(sent);
const seen: Set<string>[] = [];
const all = new Set<string>();
for (const call of sent) {
  seen.push(new Set(all));
  for (const block of call.blocks) all.add(block.hash);
}
let prefix = 0;
let ceiling = 0;
let total = 0;
let moves = 0;
const lost = new Map<string, number>();
const breaks = new Map<string, number>();
for (let index = Math.max(0, start); index < sent.length; index++) {
  const call = sent[index] as (typeof sent)[number];
  const previous = sent[index - 1];
  ceiling += again[index]?.again ?? 0;
  total += again[index]?.total ?? 0;
  if (calls[index]?.moved === true) moves++;
  if (previous === undefined || previous.toolHash !== call.toolHash) continue;
  let shared = 0;
  while (shared < call.blocks.length && previous.blocks[shared]?.hash === call.blocks[shared]?.hash) shared++;
  prefix += call.toolTokens;
  for (let block = 0; block < shared; block++) prefix += call.blocks[block]?.tokens ?? 0;
  const label = `${calls[index]?.turn === calls[index - 1]?.turn ? 'step' : 'turn'}${calls[index]?.moved ? '+moved' : ''}`;
  // Where the prefix broke: the layer the previous call had at that place, and this call's.
  if (shared < call.blocks.length && shared < previous.blocks.length) {
    let lostHere = 0;
    for (let block = shared; block < call.blocks.length; block++)
      if (seen[index]?.has(call.blocks[block]?.hash ?? '')) lostHere += call.blocks[block]?.tokens ?? 0;
    const key = `${label} broke at ${layers[index - 1]?.[shared] ?? '?'} → ${layers[index]?.[shared] ?? '?'} (block ${shared} of ${call.blocks.length})`;
    const coarse = key.replace(/ \(block .*\)$/u, '');
    breaks.set(coarse, (breaks.get(coarse) ?? 0) + lostHere);
  }
  for (let block = shared; block < call.blocks.length; block++) {
    const entry = call.blocks[block];
    if (entry === undefined || !seen[index]?.has(entry.hash)) continue;
    const key = `${label} lost ${layers[index]?.[block] ?? '?'}`;
    lost.set(key, (lost.get(key) ?? 0) + entry.tokens);
  }
}
// The recall the answering call (a turn's last) sent: what decision 068's room for the steps costs.
let recalled = 0;
let answers = 0;
for (let index = Math.max(0, start); index < sent.length; index++) {
  if (calls[index + 1]?.turn === calls[index]?.turn) continue;
  answers++;
  sent[index]?.blocks.forEach((block, at) => {
    const layer = layers[index]?.[at];
    if (layer === 'recall__context' || layer === 'held recall') recalled += block.tokens;
  });
}
const percent = (value: number, of: number) => `${((100 * value) / Math.max(1, of)).toFixed(1)} %`;
console.log(
  `${kind}, ${turns.length} turns, ${sent.length - Math.max(0, start)} steady calls, ${moves} moves: previous call's prefix ${percent(prefix, total)}, ceiling ${percent(ceiling, total)}, ${percent(prefix, ceiling)} of the ceiling`,
);
console.log(
  `  uncached ${total - prefix} of ${total} input tokens; recall at a turn's last call ${Math.round(recalled / Math.max(1, answers))} tokens (mean)`,
);
for (const [key, tokens] of [...lost].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
  console.log(`  ${key}: ${tokens} tokens (${percent(tokens, ceiling)} of the ceiling)`);
}
for (const [key, tokens] of [...breaks].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
  console.log(`  ${key}: ${tokens} tokens lost after it (${percent(tokens, ceiling)} of the ceiling)`);
}
