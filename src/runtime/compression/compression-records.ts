import type {
  ArtifactEntry,
  ArtifactStoreState,
  EvidenceRecord,
  RequirementItem,
  RequirementTodoSnapshot,
  RequirementTodoState,
  ToolEvidence,
} from '../../compression/index.ts';

/** Records by key: the elements of every growing list of the compression state. */
export type CompressionRecords = Record<string, unknown>;

/**
 * Ordered upsert of record writes (later writes win per key; batching-invariant, as delta
 * channels require). Copies on the first change only.
 */
export function upsertRecords(
  state: CompressionRecords,
  writes: readonly CompressionRecords[],
): CompressionRecords {
  let merged = state;
  for (const write of writes) {
    for (const [key, value] of Object.entries(write)) {
      if (merged === state) merged = { ...state };
      merged[key] = value;
    }
  }
  return merged;
}

/** A requirement snapshot without its lists: item ids in order and list lengths. */
export interface SnapshotSkeleton
  extends Omit<RequirementTodoSnapshot, 'items' | 'evidenceHistory' | 'appliedDeltaIds'> {
  itemIds: string[];
  historyLength: number;
  appliedLength: number;
}

/** The requirement state without its lists (stored as a plain field). */
export interface RequirementsSkeleton {
  global: SnapshotSkeleton;
  scoped: Record<string, SnapshotSkeleton>;
  openQuestions: RequirementTodoState['openQuestions'];
}

/** The artifact index without entries, evidence and contents: ids in order. */
export interface ArtifactsSkeleton extends Omit<ArtifactStoreState['index'], 'artifacts' | 'evidence'> {
  artifactIds: string[];
  evidenceIds: string[];
}

/** Splits requirements into a small skeleton and one record per item, audit entry and delta id. */
export function splitRequirements(
  state: RequirementTodoState,
  records: CompressionRecords,
): RequirementsSkeleton {
  const split = (scope: string, snapshot: RequirementTodoSnapshot): SnapshotSkeleton => {
    const { items, evidenceHistory, appliedDeltaIds, ...rest } = snapshot;
    for (const item of items) records[`i:${scope}:${item.id}`] = item;
    evidenceHistory.forEach((entry, index) => {
      records[`h:${scope}:${index}`] = entry;
    });
    appliedDeltaIds.forEach((id, index) => {
      records[`d:${scope}:${index}`] = id;
    });
    return {
      ...rest,
      itemIds: items.map((item) => item.id),
      historyLength: evidenceHistory.length,
      appliedLength: appliedDeltaIds.length,
    };
  };
  return {
    global: split('g', state.global),
    scoped: Object.fromEntries(
      Object.entries(state.scoped).map(([id, snapshot]) => [id, split(`s:${id}`, snapshot)]),
    ),
    openQuestions: state.openQuestions,
  };
}

/** Rebuilds requirements from a skeleton and the records. */
export function joinRequirements(
  skeleton: RequirementsSkeleton,
  records: CompressionRecords,
): RequirementTodoState {
  const join = (scope: string, snapshot: SnapshotSkeleton): RequirementTodoSnapshot => {
    const { itemIds, historyLength, appliedLength, ...rest } = snapshot;
    return {
      ...rest,
      items: itemIds.map((id) => records[`i:${scope}:${id}`] as RequirementItem),
      evidenceHistory: Array.from(
        { length: historyLength },
        (_, index) => records[`h:${scope}:${index}`] as EvidenceRecord,
      ),
      appliedDeltaIds: Array.from(
        { length: appliedLength },
        (_, index) => records[`d:${scope}:${index}`] as string,
      ),
    };
  };
  return {
    global: join('g', skeleton.global),
    scoped: Object.fromEntries(
      Object.entries(skeleton.scoped).map(([id, snapshot]) => [id, join(`s:${id}`, snapshot)]),
    ),
    openQuestions: skeleton.openQuestions,
  };
}

/** Splits the artifact state into a skeleton and one record per entry, evidence and content. */
export function splitArtifacts(state: ArtifactStoreState, records: CompressionRecords): ArtifactsSkeleton {
  const { artifacts, evidence, ...rest } = state.index;
  for (const entry of artifacts) records[`a:${entry.id}`] = entry;
  for (const item of evidence) records[`e:${item.id}`] = item;
  for (const [id, content] of Object.entries(state.contents)) records[`c:${id}`] = content;
  return {
    ...rest,
    artifactIds: artifacts.map((entry) => entry.id),
    evidenceIds: evidence.map((item) => item.id),
  };
}

/** Rebuilds the artifact state from a skeleton and the records. */
export function joinArtifacts(skeleton: ArtifactsSkeleton, records: CompressionRecords): ArtifactStoreState {
  const { artifactIds, evidenceIds, ...rest } = skeleton;
  const contents: Record<string, string> = {};
  for (const id of artifactIds) {
    const content = records[`c:${id}`];
    if (typeof content === 'string') contents[id] = content;
  }
  return {
    index: {
      ...rest,
      artifacts: artifactIds.map((id) => records[`a:${id}`] as ArtifactEntry),
      evidence: evidenceIds.map((id) => records[`e:${id}`] as ToolEvidence),
    },
    contents,
  };
}
