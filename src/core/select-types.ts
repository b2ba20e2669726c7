import type { ContextBlock } from './block.ts';
import type { BudgetPlan } from './budget.ts';

/** Why a block was left out. Every dropped block carries exactly one. */
export type DropReason =
  /**
   * Another block of the same fact is kept: `of` is its id. `messageId` when both name that
   * memory entry or message (a history block always wins then); absent for equal content.
   */
  | { type: 'duplicate'; of: string; messageId?: string }
  /**
   * No room in its layer's grant. `recallTool`: a step of the current turn (not stored yet),
   * found again by that tool while the turn runs (`ToolResultPolicy.recallTool`, decision 070).
   */
  | { type: 'over-budget'; grantTokens: number; recallTool?: string }
  /** Older than the history window: only the newest `maxMessages` messages are sent (`maxHistoryMessages`). */
  | { type: 'history-window'; maxMessages: number }
  | { type: 'pinned-over-budget'; budgetTokens: number }
  | { type: 'share-disabled' }
  | { type: 'summarized'; into: string }
  /** Behind a long session's cut and sent anyway: recalled for this query into `into` (decision 040). */
  | { type: 'recalled'; into: string }
  /**
   * Behind a long session's cut, carried by no summary text that is sent, and not recalled for
   * this query: in the session's conversation index, found by the model's `tool` (decision 040).
   */
  | { type: 'recallable'; tool: string };

/** A block that did not make it, with its reason. */
export interface DroppedBlock {
  block: ContextBlock;
  reason: DropReason;
}

/** Input of {@link selectBlocks}. */
export interface SelectInput {
  /** Candidate blocks of compactable layers, in collection order. */
  blocks: readonly ContextBlock[];
  /** Allocations per source name, and the unallocated pool. */
  plan: Pick<BudgetPlan, 'allocations' | 'unallocated'>;
  /** Tokens pinned blocks may use in all (what the input budget leaves after fixed layers). */
  pinnedBudget: number;
  /** Priority of each source (0..1); layers with higher-priority sources draw on the pool first. */
  sourcePriorities?: Readonly<Record<string, number>>;
  /** Layer order, used to break priority ties deterministically. */
  layerOrder?: readonly string[];
  /** Tokens charged per block for the separator that joins it to its neighbours. Default 0. */
  separatorTokens?: number;
  /**
   * The current turn's tool steps among the history blocks (a call in a tool loop). When the
   * history's grant cannot hold them, they take what the other layers leave unused.
   */
  isStep?: (block: ContextBlock) => boolean;
  /**
   * Tokens the plan set aside for pinned blocks (its allocations are what is left): what the
   * kept pinned blocks leave of it is unused room the steps may take. Default 0.
   */
  pinnedReserved?: number;
  /**
   * The frame the plan's fixed part holds for each of `layers` (context layers with no fixed
   * text): one that keeps no block is not sent, so its frame too is room the steps may take.
   */
  layerFrames?: { tokens: number; layers: ReadonlySet<string> };
}

/** Per-layer accounting of a selection. */
export interface LayerGrant {
  layer: string;
  /** Σ allocations of the layer's sources plus what it drew from the pool. */
  grantTokens: number;
  /** Tokens of the kept unpinned blocks (with separators). */
  usedTokens: number;
  /** Tokens all its unpinned candidates wanted. */
  demandTokens: number;
}

/** Output of `selectBlocks`. */
export interface Selection {
  /** Kept blocks, in their input order. */
  kept: ContextBlock[];
  dropped: DroppedBlock[];
  layers: LayerGrant[];
  /** Tokens used by kept pinned blocks. */
  pinnedTokens: number;
}
