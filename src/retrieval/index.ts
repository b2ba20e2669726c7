export { type Analyzer, type AnalyzerOptions, type CjkMode, createAnalyzer } from './analyzer.ts';
export {
  BM25_FORMAT_VERSION,
  type Bm25Hit,
  type Bm25Index,
  type Bm25IndexOptions,
  type Bm25SearchOptions,
  createBm25Index,
  loadBm25Index,
  type SerializedBm25Index,
} from './bm25-index.ts';
export type { RankedCandidate, RetrievalCandidate } from './candidate.ts';
export { type ChunkDocumentOptions, chunkDocument } from './chunk-document.ts';
export {
  type ConversationEntry,
  type ConversationIndex,
  type ConversationIndexOptions,
  createConversationIndex,
} from './conversation-index.ts';
export { dedupeCandidates } from './dedupe-candidates.ts';
export { type AiSdkEmbedderOptions, createAiSdkEmbedder, type Embedder } from './embedder.ts';
export {
  createUniversalSentenceEncoderEmbedder,
  type UniversalSentenceEncoderOptions,
} from './embedders/universal-sentence-encoder.ts';
export { type InjectRetrievalOptions, injectRetrieval } from './inject-retrieval.ts';
export {
  createKnowledgeBase,
  KNOWLEDGE_BASE_FORMAT_VERSION,
  type KnowledgeBase,
  type KnowledgeBaseOptions,
  type KnowledgeDocument,
  type SerializedKnowledgeBase,
} from './knowledge-base.ts';
export { type RewriteQueryOptions, type RewrittenQuery, rewriteQuery } from './query-rewriter.ts';
export {
  createQueryTool,
  type QueryToolInput,
  type QueryToolOptions,
  type QueryToolOutput,
  type QueryToolResult,
} from './query-tool.ts';
export type { RecallRequest, RecallSource } from './recall-source.ts';
export type { RerankContext, RerankSignal } from './rerank-signals.ts';
export { createReranker, type Reranker, type RerankerOptions, type RerankInput } from './reranker.ts';
export {
  createRetriever,
  type RecallSourceConfig,
  type RetrievalResult,
  type RetrieveRequest,
  type Retriever,
  type RetrieverOptions,
} from './retriever.ts';
export { stemEnglish } from './stem-english.ts';
export { splitSentences } from './trim-to-sentences.ts';
export {
  createVectorIndex,
  loadVectorIndex,
  type SerializedVectorIndex,
  VECTOR_FORMAT_VERSION,
  type VectorHit,
  type VectorIndex,
} from './vector-index.ts';
