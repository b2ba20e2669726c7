export { type AgentSourceOptions, type AgentState, createAgentSource } from './agent-source.ts';
export {
  type ImportanceReason,
  type ImportanceScore,
  type ImportanceScorer,
  scoreImportance,
} from './importance-scorer.ts';
export { createInheritedSource, type InheritedSourceOptions } from './inherited-source.ts';
export { createL1RecentSource, type L1RecentSourceOptions } from './l1-recent-source.ts';
export { createL2ImportantSource, type L2ImportantSourceOptions } from './l2-important-source.ts';
export {
  type MemoryEntry,
  type MemoryStore,
  type MemoryStoreOptions,
  type MemoryView,
  openMemoryStore,
} from './memory-store.ts';
export { createPostgresMemoryStore, type PostgresMemoryStoreOptions } from './postgres-memory-store.ts';
export { createPromptSource, type PromptFragment, type PromptSourceOptions } from './prompt-source.ts';
export {
  openSharedPool,
  type PublishInput,
  type SharedEntry,
  type SharedPool,
  type SharedPoolOptions,
} from './shared-pool.ts';
export { createSharedPoolSource, type SharedPoolSourceOptions } from './shared-pool-source.ts';
export { createSkillSource, type Skill, type SkillSourceOptions } from './skill-source.ts';
export { createToolSource, type ToolGuide, type ToolSourceOptions } from './tool-source.ts';
export {
  createUnifiedRetrievalSource,
  type UnifiedRetrievalSourceOptions,
} from './unified-retrieval-source.ts';
export { createUserSource, type UserProfile, type UserSourceOptions } from './user-source.ts';
