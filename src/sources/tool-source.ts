import { type ContextBlock, type ContextSource, createBlock } from '../core/index.ts';
import { isErrorResult, messageParts, toolOutputText } from '../core/message.ts';
import { createBm25Index } from '../retrieval/bm25-index.ts';
import { fitBlocks } from './fit-blocks.ts';

/** A tool as the model should understand it. */
export interface ToolGuide {
  name: string;
  description: string;
  /** Usage notes beyond the schema: when to call it, pitfalls, examples. */
  usage?: string;
}

/** Options of {@link createToolSource}. */
export interface ToolSourceOptions {
  tools: readonly ToolGuide[] | (() => readonly ToolGuide[]);
  /** Budget key; default `tool`. */
  name?: string;
  /** Default `framework__context`. */
  layer?: string;
  /** 0..1, default 0.7. */
  priority?: number;
  /** Recent failed tool results (from the request's history) reported; default 3, 0 = none. */
  recentErrors?: number;
}

/**
 * Seed 001's `tool` source. Reads tool guides (name, description, usage notes — what the
 * JSON schema cannot say) and the request's history, and fills `framework__context` with
 * (1) one block per tool, ordered by relevance to the query (BM25; tools that do not match
 * follow in their given order), and (2) a block listing the latest failed tool results
 * (`error-*` / denied outputs) so the model does not repeat a failing call. Within budget.
 */
export function createToolSource(options: ToolSourceOptions): ContextSource {
  const name = options.name ?? 'tool';
  const layer = options.layer ?? 'framework__context';
  return {
    name,
    layer,
    priority: options.priority ?? 0.7,
    async collect(request, budget) {
      const tools = typeof options.tools === 'function' ? options.tools() : options.tools;
      const guideBlock = (toolName: string, rank: number) => {
        const tool = tools.find((candidate) => candidate.name === toolName);
        if (tool === undefined) return [];
        return [
          createBlock(
            {
              id: `${name}:${tool.name}`,
              layer,
              source: name,
              content: `Tool ${tool.name}: ${tool.description}${tool.usage === undefined ? '' : `\nUsage: ${tool.usage}`}`,
              priority: 0.7,
              metadata: { tool: tool.name, rank },
            },
            request.counter,
          ),
        ];
      };
      const index = createBm25Index();
      for (const tool of tools) index.add(tool.name, `${tool.name} ${tool.description} ${tool.usage ?? ''}`);
      const relevant = index.search(request.query, { limit: tools.length }).map((hit) => hit.id);
      const order = [
        ...relevant,
        ...tools.map((tool) => tool.name).filter((toolName) => !relevant.includes(toolName)),
      ];
      const errors: string[] = [];
      const recentErrors = options.recentErrors ?? 3;
      for (let index = request.history.length - 1; index >= 0 && errors.length < recentErrors; index--) {
        const message = request.history[index];
        if (message === undefined) continue;
        for (const part of messageParts(message)) {
          if (isErrorResult(part))
            errors.push(`- ${part.toolName}: ${toolOutputText(part.output).slice(0, 300)}`);
        }
      }
      const errorBlocks: ContextBlock[] = [];
      if (errors.length > 0) {
        errorBlocks.push(
          createBlock(
            {
              id: `${name}:recent-errors`,
              layer,
              source: name,
              content: `Recent tool failures (do not repeat them unchanged):\n${errors.join('\n')}`,
              priority: 0.9,
              metadata: { kind: 'recent-errors', count: errors.length },
            },
            request.counter,
          ),
        );
      }
      // Relevance decides what fits the budget (failures first); the guides are sent in the
      // given order, so the layer's text does not change with the query (it sits in the
      // cached prefix; only a new failure changes it).
      const fitting = new Set(
        fitBlocks(
          [...errorBlocks, ...order.flatMap((toolName) => guideBlock(toolName, 0))],
          budget.maxTokens,
        ).map((block) => block.id),
      );
      const guides = tools
        .map((tool) => tool.name)
        .filter((toolName) => fitting.has(`${name}:${toolName}`))
        .flatMap((toolName) => guideBlock(toolName, order.indexOf(toolName)));
      return [...errorBlocks.filter((block) => fitting.has(block.id)), ...guides];
    },
  };
}
