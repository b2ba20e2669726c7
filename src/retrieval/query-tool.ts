import { type Tool, tool } from 'ai';
import { z } from 'zod';
import type { Provenance, TokenCounter } from '../core/index.ts';
import type { Retriever } from './retriever.ts';

/** Options of {@link createQueryTool}. */
export interface QueryToolOptions {
  retriever: Retriever;
  counter: TokenCounter;
  /** Token budget of one tool result; default 2000, ≥ 1. */
  maxTokens?: number;
  /** Tool description shown to the model. */
  description?: string;
}

/** Input the model sends. */
export interface QueryToolInput {
  query: string;
  maxResults?: number | undefined;
}

/** One returned passage with where it came from. */
export interface QueryToolResult {
  id: string;
  origin: string;
  content: string;
  score: number;
  provenance?: Provenance;
  metadata: Record<string, unknown>;
}

/** What the tool returns. */
export interface QueryToolOutput {
  query: string;
  results: QueryToolResult[];
}

const inputSchema = z.object({
  query: z.string().min(1).max(2000).describe('What to look up, in natural language or keywords.'),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .describe('Most passages to return (default: as many as fit).'),
});

/**
 * The active retrieval channel (seed 001 → Tools.md): an AI SDK tool named by the caller
 * (conventionally `query`) that runs the same retrieval as `UnifiedRetrievalSource` — recall,
 * rerank, budget — and returns passages with provenance. No query rewriting: the agent's query
 * is already explicit.
 * @example
 * const tools = { query: createQueryTool({ retriever, counter }) };
 */
export function createQueryTool(options: QueryToolOptions): Tool<QueryToolInput, QueryToolOutput> {
  const maxTokens = options.maxTokens ?? 2000;
  return tool({
    description:
      options.description ??
      'Search conversation memory and the knowledge bases. Returns the most relevant passages with their source.',
    inputSchema,
    execute: async (input, executionOptions): Promise<QueryToolOutput> => {
      const result = await options.retriever.retrieve({
        query: input.query,
        maxTokens,
        counter: options.counter,
        ...(executionOptions.abortSignal === undefined ? {} : { signal: executionOptions.abortSignal }),
      });
      const blocks =
        input.maxResults === undefined ? result.blocks : result.blocks.slice(0, input.maxResults);
      return {
        query: result.query.query,
        results: blocks.map((block) => {
          const entry: QueryToolResult = {
            id: String(block.metadata.candidateId ?? block.id),
            origin: String(block.metadata.origin ?? block.source),
            content: block.content,
            score: block.priority,
            metadata: block.metadata,
          };
          if (block.provenance !== undefined) entry.provenance = block.provenance;
          return entry;
        }),
      };
    },
  });
}
