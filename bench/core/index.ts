import { clearMergeCache, countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { getEncoding } from 'js-tiktoken';
import {
  compileContext,
  createOrchestrator,
  createStepCompiler,
  type Message,
  withTokenCache,
} from '../../src/core/index.ts';
import { createO200kCounter } from '../../src/tokenizers/index.ts';
import type { BenchContext } from '../lib/context.ts';
import { measureInterleavedAsync, speedProbe, tokenisingCandidate } from '../lib/measure.ts';
import type { BenchMetric } from '../lib/result.ts';
import { coldOverhead } from './cold.ts';
import { type BenchSession, buildSession, knowledgeSource, loadedCounter } from './session.ts';
import { stepWorkload } from './step.ts';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const WINDOW = 128_000;
const ORDINARY = { disallowedSpecial: new Set<string>() };

/**
 * Suite `core` (issues 2 and 26): the compile pipeline on a 128k-token session.
 * - cold compile (tokenizer loaded, every cache empty, a new session: every text and message
 *   object new to the process; knowledge blocks made by a source with the compile's counter)
 *   vs pure tokenisation of the same texts once with the same o200k
 *   counter — the pipeline's overhead, with Chinese knowledge and with history only; and the
 *   same compile with a counter that tokenises nothing, which shows the overhead itself;
 * - warm recompile after appending one message vs recounting every message on every call,
 *   with gpt-tokenizer's merge cache warm (the fastest recount) and with js-tiktoken;
 * - a tool-loop step over 2,000+ short messages: the warm per-step recompile vs the step's
 *   tokenisation.
 */
export async function run(context: BenchContext): Promise<BenchMetric[]> {
  const session = buildSession(createO200kCounter());
  context.log(
    `session: ${session.history.length} messages, ${session.knowledge.length} knowledge paragraphs (zh), ${session.tokens} tokens (o200k)`,
  );
  const withKnowledge = await coldOverhead(context, session, true);
  const historyOnly = await coldOverhead(context, session, false);
  const warm = await warmRecompile(context, session);
  const steps = await stepRecompile(context);
  return [...withKnowledge, ...historyOnly, ...warm, ...steps, ...(await reportSize())];
}

/** Warm recompile after one new message vs recounting every message per call (gpt-tokenizer warm, js-tiktoken). */
async function warmRecompile(context: BenchContext, session: BenchSession): Promise<BenchMetric[]> {
  const orchestrator = createOrchestrator({
    counter: loadedCounter(),
    window: WINDOW,
    sources: [knowledgeSource(session.knowledge)],
  });
  const history = [...session.history];
  const request = () => ({ systemPrompt: session.systemPrompt, history, query: session.query });
  await orchestrator.build(request());
  let appended = 0;
  const encoding = getEncoding('o200k_base');
  const inputBudget = WINDOW - Math.floor(WINDOW * 0.25);
  // Per-call times averaged over consecutive calls within each timed run: an agent loop
  // recompiles without a forced full GC in between, and the runner's gc() before every run
  // would otherwise dominate a ~10 ms recompile (measured 2–3× slower right after gc()).
  const WARM_CALLS = 10;
  const RECOUNT_CALLS = 2;
  // Count every message, then keep the newest that fit: what per-call trimmers do.
  const recountOnce = (count: (text: string) => number) => {
    const counts = history.map((message) => count(String(message.content)) + 4);
    let used = count(session.systemPrompt);
    for (const text of session.knowledge) used += count(text.content);
    let kept = 0;
    for (let index = counts.length - 1; index >= 0 && used + (counts[index] ?? 0) <= inputBudget; index--) {
      used += counts[index] ?? 0;
      kept++;
    }
    return kept;
  };
  const gptTokenizer = (text: string) => countTokens(text, ORDINARY);
  clearMergeCache();
  recountOnce(gptTokenizer);
  const [warmRun, gptRun, tiktokenRun] = await measureInterleavedAsync(
    [
      {
        name: 'ctxloom warm recompile (+1 message)',
        run: async () => {
          let total = 0;
          for (let call = 0; call < WARM_CALLS; call++) {
            history.push({
              id: `new-${appended}`,
              role: 'user',
              content: `A new message number ${appended++} about the trip.`,
            });
            total += (await orchestrator.build(request())).report.totalTokens;
          }
          return total;
        },
      },
      {
        name: 'gpt-tokenizer recount per call (merge cache warm)',
        run: async () => {
          let kept = 0;
          for (let call = 0; call < RECOUNT_CALLS; call++) kept += recountOnce(gptTokenizer);
          return kept;
        },
      },
      {
        name: 'js-tiktoken recount per call',
        run: async () => recountOnce((text) => encoding.encode(text).length),
      },
    ],
    { runs: context.runs },
  );
  if (warmRun === undefined || gptRun === undefined || tiktokenRun === undefined) return [];
  // Steady state, as the step row measures it: one call per sample, the compile and the
  // recount alternated, no forced GC between them (the runner's gc() before each timed run
  // above also makes V8 rebuild the object shapes the compile's optimised code depends on).
  const compileSamples: number[] = [];
  const recountSamples: number[] = [];
  for (let sample = 0; sample < Math.max(41, context.runs); sample++) {
    let compileMs: number;
    let recountMs: number;
    // The pair is timed again when the machine ran slow beside it (see `speedProbe`).
    for (;;) {
      history.push({
        id: `new-${appended}`,
        role: 'user',
        content: `A new message number ${appended++} about the trip.`,
      });
      const before = speedProbe.slow();
      let started = process.cpuUsage();
      await orchestrator.build(request());
      let used = process.cpuUsage(started);
      compileMs = (used.user + used.system) / 1000;
      started = process.cpuUsage();
      recountOnce(gptTokenizer);
      used = process.cpuUsage(started);
      recountMs = (used.user + used.system) / 1000;
      if (speedProbe.settle(before)) break;
    }
    compileSamples.push(compileMs);
    recountSamples.push(recountMs);
  }
  const steadyMs = median(compileSamples);
  const recountMs = median(recountSamples);
  context.log(
    `warm steady state: recompile ${steadyMs.toFixed(2)} ms CPU, gpt-tokenizer recount ${recountMs.toFixed(1)} ms CPU (medians of ${compileSamples.length})`,
  );
  const warmMs = warmRun.medianMs / WARM_CALLS;
  const gptMs = gptRun.medianMs / RECOUNT_CALLS;
  return [
    {
      name: 'compile.warm.speedup.vs-gpt-tokenizer-warm',
      value: gptMs / warmMs,
      unit: 'x',
      target: '≥ 20× faster than recounting every message with gpt-tokenizer (its cache warm)',
    },
    {
      // CPU time is steadier than wall time when other processes share the cores.
      name: 'compile.warm.speedup.vs-gpt-tokenizer-warm.cpu',
      value: gptRun.medianCpuMs / RECOUNT_CALLS / (warmRun.medianCpuMs / WARM_CALLS),
      unit: 'x',
      target: '≥ 20× (CPU time)',
    },
    {
      name: 'compile.warm.speedup.vs-gpt-tokenizer-warm.steady.cpu',
      value: recountMs / steadyMs,
      unit: 'x',
      target: '≥ 20× (CPU time, one call per sample, no forced GC between)',
    },
    {
      name: 'compile.warm.speedup.vs-js-tiktoken',
      value: tiktokenRun.medianMs / warmMs,
      unit: 'x',
    },
    { name: 'compile.warm', value: warmMs, unit: 'ms', peer: { name: gptRun.name, value: gptMs } },
  ];
}

/**
 * A tool loop over a long history of short messages (2,000+ LoCoMo turns, 128k window): each
 * sample a turn's new step compiler over one counter (as docs/per-step.md has it) that has
 * compiled the step before; timed (CPU) is the compile after one new short tool result whose
 * text was counted when it arrived, against tokenising the step's texts cold.
 */
async function stepRecompile(context: BenchContext): Promise<BenchMetric[]> {
  const { history, steps, toolPair, compiler: stepCompiler } = stepWorkload(createStepCompiler);
  // One counter for the run, as an application has one (docs/per-step.md): each sample is a
  // turn's new step compiler, which finds the history measured by the turns before.
  const counter = withTokenCache(loadedCounter());
  const compiler = () => stepCompiler(counter);
  const sample = await compiler().compile(steps);
  const stepTexts = sample.messages.flatMap((message) =>
    typeof message.content === 'string'
      ? [message.content]
      : message.content.map((part) =>
          part.type === 'tool-result' ? JSON.stringify(part.output) : JSON.stringify(part),
        ),
  );
  const [tokenise] = await measureInterleavedAsync(
    [tokenisingCandidate('o200k tokenisation of the step', loadedCounter, () => stepTexts)],
    { runs: context.runs },
  );
  let round = 0;
  const samples: number[] = [];
  // One compile per sample (~1–2 ms): 41 of them, so a median holds under a busy machine.
  for (let run = 0; run < Math.max(41, context.runs); run++) {
    let recompileMs: number;
    // Timed again when the machine ran slow beside it (see `speedProbe`).
    for (;;) {
      const warmCompiler = compiler();
      await warmCompiler.compile(steps);
      await warmCompiler.compile(steps);
      const text = `Result ${round++}: the hotel is booked.`;
      counter.countText(text);
      const before = speedProbe.slow();
      const started = process.cpuUsage();
      await warmCompiler.compile([...steps, ...toolPair(`new${round}`, text)]);
      const used = process.cpuUsage(started);
      recompileMs = (used.user + used.system) / 1000;
      if (speedProbe.settle(before)) break;
    }
    samples.push(recompileMs);
  }
  samples.sort((a, b) => a - b);
  const recompileMs = samples[Math.floor(samples.length / 2)] as number;
  if (tokenise === undefined) return [];
  context.log(
    `step: ${history.length} short messages, ${sample.report.totalTokens} tokens sent; recompile ${recompileMs.toFixed(2)} ms CPU, tokenisation ${tokenise.medianCpuMs.toFixed(1)} ms CPU`,
  );
  return [
    {
      name: 'compile.step.short-messages.share',
      value: (100 * recompileMs) / tokenise.medianCpuMs,
      unit: '%',
      target: '≤ 5 % of the step’s tokenisation time (CPU)',
    },
    {
      name: 'compile.step.short-messages',
      value: recompileMs,
      unit: 'ms',
      peer: { name: tokenise.name, value: tokenise.medianCpuMs },
    },
  ];
}

/**
 * Size of one report (what the preview sends and each call-log record stores) for a
 * 5,000-message session under a 16k window, beside the same report listing every dropped
 * message one by one (its history drops expanded back to single entries' cost).
 */
async function reportSize(): Promise<BenchMetric[]> {
  const counter = createO200kCounter();
  const history: Message[] = Array.from({ length: 5000 }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `message ${index} `.repeat(40),
  }));
  const { report, dropped } = await compileContext(
    { systemPrompt: 'You help.', history, query: { id: 'q', role: 'user', content: 'go on' } },
    { counter, window: 16_000 },
  );
  const layer = report.layers.find((entry) => entry.layer === 'history');
  const listed = layer?.dropped.filter((block) => block.run === undefined) ?? [];
  const perEntry = listed.length === 0 ? 0 : JSON.stringify(listed).length / listed.length;
  const historyDrops = dropped.filter((entry) => entry.block.layer === 'history').length;
  const runs = JSON.stringify(layer?.dropped.filter((block) => block.run !== undefined) ?? []).length;
  const size = JSON.stringify(report).length;
  return [
    {
      name: 'report.bytes.5000-messages',
      value: size,
      unit: 'B',
      peer: {
        name: 'every dropped message listed',
        value: Math.round(size - runs + perEntry * (historyDrops - listed.length)),
      },
    },
  ];
}
