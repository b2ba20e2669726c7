import type { ContextBlock } from './block.ts';
import type { AllocateInput, BudgetPlan } from './budget.ts';
import { closestName } from './closest-name.ts';
import { collectBlocks, type SourceResult } from './collector.ts';
import type { CompileOptions, CompileRequest } from './compile-types.ts';
import { CtxloomError } from './errors.ts';
import { HISTORY_SOURCE } from './history.ts';
import type { LayerRegistry } from './layers.ts';
import { messageText } from './message.ts';
import type { ResolvedCall } from './resolve-call.ts';
import type { ContextSource } from './source.ts';
import { splitUnreachableHistory } from './unreachable-history.ts';

/** What the gather stage hands to selection (see {@link gatherBlocks}). */
export interface GatheredBlocks {
  results: SourceResult[];
  /** Sources of layers the share switch leaves out (reported, never run). */
  skippedSources: ContextSource[];
  sourcePriorities: Record<string, number>;
  layerOrder: string[];
  /** Tokens the pinned candidates ask for. */
  pinnedWanted: number;
  /** The plan before selection: its allocations went to the sources. */
  firstPlan: BudgetPlan;
  /** The plan's input without the fixed tokens (each selection reserves its own). */
  allocateInput: Omit<AllocateInput, 'fixedTokens'>;
  /** History older than what the whole input budget could hold (skips selection). */
  unreachable: readonly ContextBlock[];
  unreachableTokens: number;
  /** Candidates, then the reachable history: what selection ranks. */
  selectable: ContextBlock[];
  /** How many of `selectable` are candidates (the sources' and fixed blocks); the rest is the history's. */
  candidateCount: number;
}

/**
 * Stage 2, gather: plans the budget, runs the sources concurrently with their allocations and
 * sorts their blocks in, then sets aside the history no grant could ever hold.
 */
export async function gatherBlocks(
  call: ResolvedCall,
  request: CompileRequest,
  options: CompileOptions,
): Promise<GatheredBlocks> {
  const { counter, included, candidates, historyCandidates, query, layers } = call;
  // Checked before the share filter: a misspelt layer is an error, not a layer sharing left out.
  for (const source of options.sources ?? []) assertSourceLayer(source, layers);
  const activeSources = (options.sources ?? []).filter((source) => included(source.layer));
  const skippedSources = (options.sources ?? []).filter((source) => !included(source.layer));
  const names = new Set<string>();
  for (const source of activeSources) names.add(source.name);
  for (const block of candidates) names.add(block.source);
  if (historyCandidates.length > 0) names.add(HISTORY_SOURCE);
  const allocateInput = { ...phaseOf(request), sources: [...names] };
  const firstPlan = call.budget.allocate({ ...allocateInput, fixedTokens: call.fixedTokens });
  const queryText = query === undefined ? '' : messageText(query);
  const results: SourceResult[] = await collectBlocks({
    sources: activeSources,
    request: {
      query: queryText,
      history: call.turn,
      counter,
      ...phaseOf(request),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
    },
    allocations: firstPlan.allocations,
    layers,
  });
  for (const result of results) for (const block of result.blocks) call.addBlock(block);

  const sourcePriorities: Record<string, number> = {
    history: options.historyPriority ?? 0.9,
    compression: 1,
  };
  for (const source of activeSources) sourcePriorities[source.name] = source.priority;
  const layerOrder = layers.list().map((layer) => layer.name);
  // `candidates` holds no history yet: history blocks are never pinned, and a long history
  // is read once below, not by these passes.
  const pinnedWanted = candidates
    .filter((block) => block.pinned === true)
    .reduce((sum, block) => sum + block.tokens, 0);
  // No layer can be granted more than the first plan hands out (later plans reserve more);
  // the sum guards against a custom budget manager that allocates past its input budget.
  const grantable = Object.values(firstPlan.allocations).reduce(
    (sum, tokens) => sum + tokens,
    firstPlan.unallocated,
  );
  const { reachable, unreachable, unreachableTokens } = splitUnreachableHistory(
    historyCandidates,
    Math.max(firstPlan.inputBudget, grantable),
    call.historyTokensBefore,
  );
  return {
    results,
    skippedSources,
    sourcePriorities,
    layerOrder,
    pinnedWanted,
    firstPlan,
    allocateInput,
    unreachable,
    unreachableTokens,
    // History goes last (selection ranks within a layer, so its position changes nothing).
    selectable: candidates.concat(reachable),
    candidateCount: candidates.length,
  };
}

/** A source must fill a registered layer: `unknown-layer` naming it, with the closest name. */
function assertSourceLayer(source: ContextSource, layers: LayerRegistry): void {
  if (layers.has(source.layer)) return;
  const names = layers.list().map((layer) => layer.name);
  const hint = closestName(source.layer, names);
  throw new CtxloomError({
    code: 'unknown-layer',
    message: `source "${source.name}" fills the unknown layer "${source.layer}"${hint === undefined ? '' : ` — did you mean "${hint}"?`}; registered layers: ${names.join(', ')}`,
    path: `sources.${source.name}.layer`,
  });
}

function phaseOf(request: CompileRequest) {
  return {
    ...(request.phase === undefined ? {} : { phase: request.phase }),
    ...(request.progress === undefined ? {} : { progress: request.progress }),
  };
}
