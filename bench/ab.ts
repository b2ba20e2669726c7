/**
 * Same-process A/B: `npm run bench:ab -- <cold|warm|step|retrieval|rankings> <base checkout>` loads
 * ctxloom from this tree and from `<base checkout>` into one process and times both on the
 * bench's own workloads, alternating sample by sample (the order reversed every round), so a
 * load change on a shared machine hits both alike. Prints each side's medians and new ÷ base.
 *
 * The base is another checkout of the repository, e.g. `git worktree add ../base <commit>`,
 * with `node_modules` linked to this one's and `vocab/*.br` copied (or `npm run build:vocab`).
 * The base is imported first; `AB_NEW_FIRST=1` imports this tree first.
 *
 * Calibrate before believing a small difference: two checkouts of the same commit read
 * 0.81–1.13 (warm), 0.87–1.04 (cold) and 0.94 (retrieval p50; 1.08 on an Intel Xeon) against
 * each other on 2 cores at load ~2, in either import order. A difference inside that needs many
 * runs of both orders, or whole `npm run bench` runs alternated between the two checkouts.
 *
 * - `cold`: `bench/core`'s cold compile (a session the process has not seen, caches empty), with
 *   Chinese knowledge and history only, with the o200k counter and with a counter that
 *   tokenises nothing (the pipeline alone); CPU (the process's, all threads), main-thread CPU
 *   (the compile's own work, without the collector's sweeping and V8's compiling on other
 *   threads) and wall medians.
 * - `warm`: `bench/core`'s steady warm recompile (+1 message to a 3,667-message session per
 *   call, gpt-tokenizer's recount between calls as in the bench); CPU medians.
 * - `step`: `bench/core`'s step row (per sample a new step compiler over 2,400 short messages
 *   and one counter for the run, two compiles, then the timed compile after one new tool
 *   result); CPU medians.
 * - `retrieval`: `bench/retrieval`'s query latency on the longest LoCoMo conversation, both
 *   full retrievers and FlexSearch in the same rounds; the median of each run's p50.
 * - `rankings`: no timing — every LoCoMo question retrieved by both checkouts (conversation
 *   index, default retriever, budgets 0 and 2,000 o200k tokens, and 2,000 with `messageRange` 2)
 *   and every CMRC 2018 question (Chinese; knowledge base, default retriever, budgets 0 and
 *   2,000): each result's ranked ids with their scores and signals and the packed blocks' ids and
 *   tokens, compared as JSON (numbers to the bit, but for the sign of a zero). Prints how many
 *   results differ and the first that does: "rankings unchanged" is this command's `0 differ`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type * as Core from '../src/core/index.ts';
import type * as ConversationIndex from '../src/retrieval/conversation-index.ts';
import type * as KnowledgeBase from '../src/retrieval/knowledge-base.ts';
import type * as Retriever from '../src/retrieval/retriever.ts';
import type * as Tokenizers from '../src/tokenizers/index.ts';
import { buildSession, freeCounter, knowledgeSource, loadedCounter, unseenSession } from './core/session.ts';
import { stepWorkload } from './core/step.ts';
import { median, startTimer } from './lib/measure.ts';
import { ctxloomConversationEngine } from './retrieval/ctxloom-engines.ts';
import { loadCmrc, loadLocomo } from './retrieval/datasets.ts';
import { flexSearchEngine } from './retrieval/peers.ts';
import { queryLatency } from './retrieval/timing.ts';

/** One checkout's modules. */
interface Tree {
  name: string;
  core: typeof Core;
  tokenizers: typeof Tokenizers;
  conversationIndex: typeof ConversationIndex;
  knowledgeBase: typeof KnowledgeBase;
  retriever: typeof Retriever;
}

const SUITES = ['cold', 'warm', 'step', 'retrieval', 'rankings'] as const;
const [suite, basePath] = process.argv.slice(2).filter((argument) => !argument.startsWith('-'));
if (!SUITES.includes(suite as (typeof SUITES)[number]) || basePath === undefined) {
  console.error(`usage: npm run bench:ab -- <${SUITES.join('|')}> <base checkout>`);
  process.exit(2);
}
const runs = Math.max(5, Number(process.env.BENCH_RUNS ?? 9) || 9);
const here = fileURLToPath(new URL('..', import.meta.url));
const newFirst = process.env.AB_NEW_FIRST === '1';
const first = await loadTree(newFirst ? 'new' : 'base', newFirst ? here : resolve(basePath));
const second = await loadTree(newFirst ? 'base' : 'new', newFirst ? resolve(basePath) : here);
const [base, next] = newFirst ? [second, first] : [first, second];
if (suite === 'cold') await cold();
else if (suite === 'warm') await warm();
else if (suite === 'step') await step();
else if (suite === 'retrieval') await retrieval();
else await rankings();

async function loadTree(name: string, root: string): Promise<Tree> {
  if (!existsSync(resolve(root, 'vocab/o200k_base.tokens.br'))) {
    console.error(`${root} has no vocab/o200k_base.tokens.br: copy this tree's vocab/*.br there`);
    process.exit(2);
  }
  const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
  return {
    name,
    core: await load('src/core/index.ts'),
    tokenizers: await load('src/tokenizers/index.ts'),
    conversationIndex: await load('src/retrieval/conversation-index.ts'),
    knowledgeBase: await load('src/retrieval/knowledge-base.ts'),
    retriever: await load('src/retrieval/retriever.ts'),
  };
}

function ratioLine(label: string, old: number, now: number, unit: string): string {
  return `${label}: base ${old.toFixed(3)} ${unit}, new ${now.toFixed(3)} ${unit}, new ÷ base ${(now / old).toFixed(3)}`;
}

async function cold(): Promise<void> {
  const session = buildSession(next.tokenizers.createO200kCounter());
  const collectGarbage = (globalThis as { gc?: () => void }).gc;
  let sample = 0;
  for (const knowledge of [true, false]) {
    // One compile of a session no memo of the process has seen, made before its timer starts.
    const prepare = (tree: Tree, free: boolean) => {
      const unseen = unseenSession(session, ++sample);
      const counter = free
        ? freeCounter(tree.core.createTokenCounter)
        : loadedCounter(tree.tokenizers.createO200kCounter);
      const orchestrator = tree.core.createOrchestrator({
        counter,
        window: 400_000,
        sources: knowledge ? [knowledgeSource(unseen.knowledge, tree.core.createBlock)] : [],
        allocationRatios: { knowledge: 0.5 },
      });
      return () =>
        orchestrator.build({
          systemPrompt: unseen.systemPrompt,
          history: unseen.history,
          query: unseen.query,
        });
    };
    const sides = [base, next].flatMap((tree) =>
      [false, true].map((free) => ({
        tree,
        free,
        wall: [] as number[],
        cpu: [] as number[],
        main: [] as number[],
      })),
    );
    for (let round = 0; round <= runs; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const compile = prepare(side.tree, side.free);
        collectGarbage?.();
        const timer = startTimer();
        await compile();
        const time = timer();
        // The first round warms the code up.
        if (round === 0) continue;
        side.wall.push(time.wallMs);
        side.cpu.push(time.cpuMs);
        side.main.push(time.mainCpuMs);
      }
    }
    const [oldReal, oldFree, newReal, newFree] = sides;
    if (oldReal === undefined || oldFree === undefined || newReal === undefined || newFree === undefined)
      return;
    const label = knowledge ? 'zh-knowledge' : 'history-only';
    console.log(ratioLine(`cold ${label}, CPU`, median(oldReal.cpu), median(newReal.cpu), 'ms'));
    console.log(ratioLine(`cold ${label}, wall`, median(oldReal.wall), median(newReal.wall), 'ms'));
    console.log(ratioLine(`cold ${label}, main thread`, median(oldReal.main), median(newReal.main), 'ms'));
    console.log(
      ratioLine(`cold ${label}, free counter, CPU`, median(oldFree.cpu), median(newFree.cpu), 'ms'),
    );
    console.log(
      ratioLine(`cold ${label}, free counter, main thread`, median(oldFree.main), median(newFree.main), 'ms'),
    );
  }
}

async function warm(): Promise<void> {
  const session = buildSession(next.tokenizers.createO200kCounter());
  const sides = [base, next].map((tree) => {
    const history = [...session.history];
    const orchestrator = tree.core.createOrchestrator({
      counter: loadedCounter(tree.tokenizers.createO200kCounter),
      window: 128_000,
      sources: [knowledgeSource(session.knowledge, tree.core.createBlock)],
    });
    return { tree, history, orchestrator, samples: [] as number[] };
  });
  const request = (history: Core.Message[]) => ({
    systemPrompt: session.systemPrompt,
    history,
    query: session.query,
  });
  for (const side of sides) await side.orchestrator.build(request(side.history));
  const ordinary = { disallowedSpecial: new Set<string>() };
  const recount = () => {
    let total = 0;
    for (const message of session.history) total += countTokens(String(message.content), ordinary);
    return total;
  };
  const calls = Math.max(41, runs * 5);
  for (let call = 0; call < calls; call++) {
    for (const side of call % 2 === 0 ? sides : [...sides].reverse()) {
      side.history.push({
        id: `new-${call}`,
        role: 'user',
        content: `A new message number ${call} about the trip.`,
      });
      const started = process.cpuUsage();
      await side.orchestrator.build(request(side.history));
      const used = process.cpuUsage(started);
      side.samples.push((used.user + used.system) / 1000);
      recount();
    }
  }
  const [old, now] = sides.map((side) => median(side.samples.slice(5)));
  console.log(
    ratioLine(`warm recompile (+1 message), CPU, medians of ${calls - 5}`, old ?? 0, now ?? 0, 'ms'),
  );
}

async function step(): Promise<void> {
  // One counter per side for the run, as bench/core's step row has it.
  const sides = [base, next].map((tree) => ({
    workload: stepWorkload(tree.core.createStepCompiler),
    counter: tree.core.withTokenCache(loadedCounter(tree.tokenizers.createO200kCounter)),
    samples: [] as number[],
  }));
  const calls = Math.max(41, runs * 5);
  for (let call = 0; call < calls; call++) {
    for (const side of call % 2 === 0 ? sides : [...sides].reverse()) {
      const { workload, counter } = side;
      const compiler = workload.compiler(counter);
      await compiler.compile(workload.steps);
      await compiler.compile(workload.steps);
      const text = `Result ${call}: the hotel is booked.`;
      counter.countText(text);
      const started = process.cpuUsage();
      await compiler.compile([...workload.steps, ...workload.toolPair(`new${call}`, text)]);
      const used = process.cpuUsage(started);
      side.samples.push((used.user + used.system) / 1000);
    }
  }
  const [old, now] = sides.map((side) => median(side.samples.slice(2)));
  console.log(ratioLine(`step recompile, CPU, medians of ${calls - 2}`, old ?? 0, now ?? 0, 'ms'));
}

async function retrieval(): Promise<void> {
  const { corpora } = loadLocomo();
  const longest = corpora.reduce((left, right) =>
    right.documents.length > left.documents.length ? right : left,
  );
  const engines = [base, next].map((tree) =>
    ctxloomConversationEngine(
      { indexContext: 1, recallLimit: 20, label: tree.name },
      {
        createConversationIndex: tree.conversationIndex.createConversationIndex,
        createRetriever: tree.retriever.createRetriever,
      },
    ),
  );
  const p50 = { base: [] as number[], new: [] as number[], flexsearch: [] as number[] };
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? engines : [...engines].reverse();
    const latency = await queryLatency([...order, flexSearchEngine({ chinese: false })], longest);
    for (const name of ['base', 'new', 'flexsearch'] as const) p50[name].push(latency.p50.get(name) ?? 0);
  }
  const [old, now, flex] = [median(p50.base), median(p50.new), median(p50.flexsearch)];
  console.log(ratioLine(`retrieval p50 (median of ${runs} runs)`, old, now, 'µs'));
  console.log(
    `FlexSearch p50 ${flex.toFixed(2)} µs: base ÷ FlexSearch ${(old / flex).toFixed(3)}, new ÷ FlexSearch ${(now / flex).toFixed(3)}`,
  );
}

async function rankings(): Promise<void> {
  const { corpora } = loadLocomo();
  const counter = next.tokenizers.createO200kCounter();
  const settings = [
    { maxTokens: 0, messageRange: 0 },
    { maxTokens: 2_000, messageRange: 0 },
    { maxTokens: 2_000, messageRange: 2 },
  ];
  const cmrc = loadCmrc();
  // Every result of one checkout, as JSON, in a fixed order (corpus, setting, question).
  const resultsOf = async (tree: Tree): Promise<string[]> => {
    const results: string[] = [];
    const note = async (
      retriever: Retriever.Retriever,
      questions: readonly { question: string }[],
      maxTokens: number,
    ) => {
      for (const question of questions) {
        const result = await retriever.retrieve({ query: question.question, maxTokens, counter });
        results.push(
          JSON.stringify({
            ranked: result.ranked.map((candidate) => [
              candidate.id,
              candidate.finalScore,
              candidate.vectorScore,
              candidate.signals,
            ]),
            blocks: result.blocks.map((block) => [block.id, block.tokens]),
          }),
        );
      }
    };
    for (const corpus of corpora) {
      for (const { maxTokens, messageRange } of settings) {
        const index = tree.conversationIndex.createConversationIndex({ indexContext: 1, messageRange });
        index.append(corpus.documents);
        await note(
          tree.retriever.createRetriever({ sources: [index], recallLimit: 20 }),
          corpus.questions,
          maxTokens,
        );
      }
    }
    const kb = tree.knowledgeBase.createKnowledgeBase({ name: 'kb' });
    await kb.add(cmrc.documents);
    const retriever = tree.retriever.createRetriever({ sources: [kb] });
    for (const maxTokens of [0, 2_000]) await note(retriever, cmrc.questions, maxTokens);
    return results;
  };
  const [old, now] = [await resultsOf(base), await resultsOf(next)];
  let differ = 0;
  let first: number | undefined;
  for (let index = 0; index < old.length; index++) {
    if (old[index] === now[index]) continue;
    differ++;
    first ??= index;
  }
  const ranked = now.filter((result) => !result.startsWith('{"ranked":[]')).length;
  console.log(
    `rankings: ${old.length} retrieves (${ranked} of this tree's rank candidates), ${differ} differ`,
  );
  if (first !== undefined)
    console.log(`first that differs (#${first}):\n  base ${old[first]}\n  new  ${now[first]}`);
}
