import type { ContextSource } from '../../core/index.ts';
// Direct module imports: the retrieval index also exports the AI SDK embedder, which the
// workspace does not need at run time.
import { createKnowledgeBase, type KnowledgeDocument } from '../../retrieval/knowledge-base.ts';
import { createRetriever } from '../../retrieval/retriever.ts';
import { flattenBlocks } from '../blocks/flatten-blocks.ts';
import type { ParsedFile } from '../workspace.ts';

/** Name of the retrieval source in reports and allocation ratios. */
export const WORKSPACE_RETRIEVAL_SOURCE = 'workspace-retrieval';

/**
 * The passages retrieval searches: every block of the given files, its text led by the line
 * `[file.md#heading/path]` — the reference a model cites it by — then its own text (sub-blocks
 * are passages of their own), with provenance. Blocks without text are skipped. Pure.
 */
export function buildRetrievalDocuments(files: readonly ParsedFile[]): KnowledgeDocument[] {
  const documents: KnowledgeDocument[] = [];
  for (const file of files) {
    for (const block of flattenBlocks(file.blocks)) {
      if (block.content.trim() === '') continue;
      documents.push({
        id: `${file.path}#${block.id}`,
        text: `[${file.path}#${block.id}]\n${block.content}`,
        provenance: { file: file.path, startLine: block.source.startLine, endLine: block.source.endLine },
        metadata: { file: file.path, blockId: block.id },
      });
    }
  }
  return documents;
}

/** Options of {@link createWorkspaceRetrievalSource}. */
export interface WorkspaceRetrievalSourceOptions {
  documents: readonly KnowledgeDocument[];
  /** Most passages injected (1..100). */
  topK: number;
  /** The user's own words to search with; default the compile's query text. */
  query?: string;
  /** Priority 0..1 of the source. Default 0.6. */
  priority?: number;
}

/**
 * A `ContextSource` for `knowledge__context` that retrieves workspace blocks relevant to the
 * query (the manifest's `retrieval` section): BM25 with the CJK-aware analyzer of
 * `ctxloom/retrieval`, reranked and injected within the source's budget.
 */
export function createWorkspaceRetrievalSource(options: WorkspaceRetrievalSourceOptions): ContextSource {
  const base = createKnowledgeBase({ name: 'workspace' });
  let ready: Promise<void> | undefined;
  const retriever = createRetriever({ sources: [base], rewrite: false });
  return {
    name: WORKSPACE_RETRIEVAL_SOURCE,
    layer: 'knowledge__context',
    priority: options.priority ?? 0.6,
    async collect(request, budget) {
      ready ??= base.add(options.documents);
      await ready;
      const query = options.query?.trim() || request.query;
      if (query.trim() === '' || options.documents.length === 0) return [];
      const result = await retriever.retrieve({
        query,
        history: request.history,
        maxTokens: budget.maxTokens,
        counter: request.counter,
        sourceName: WORKSPACE_RETRIEVAL_SOURCE,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      return result.blocks.slice(0, options.topK);
    },
  };
}
