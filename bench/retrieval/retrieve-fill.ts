import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { createTokenCounter, withTokenCache } from '../../src/core/index.ts';
import { createConversationIndex } from '../../src/retrieval/conversation-index.ts';
import { createRetriever } from '../../src/retrieval/retriever.ts';
import { loadLocomo } from './datasets.ts';

/** What `retrieve({ maxTokens })` packs, per setting: mean evidence recall and budget used. */
export interface FillResult {
  setting: string;
  maxTokens: number;
  evidenceRecall: number;
  budgetUsed: number;
  blocks: number;
}

/**
 * `retrieve({ maxTokens })` on the LoCoMo dev conversations (categories 1–4), o200k counts:
 * the share of each question's evidence turns among the injected blocks, the share of the
 * budget the blocks fill and their mean count — one round of `recallLimit` 20 candidates
 * (`maxRecallLimit: 20`, the behaviour before it filled the budget) against the default.
 * `npx node --conditions=ctxloom-source bench/retrieval/retrieve-fill.ts` (budgets in argv).
 */
export async function retrieveFill(budgets: readonly number[]): Promise<FillResult[]> {
  const counter = withTokenCache(
    createTokenCounter({ name: 'o200k_base', exact: true, countText: countTokens }),
  );
  const { corpora } = loadLocomo();
  const settings = [
    { setting: 'recallLimit 20, one round', maxRecallLimit: 20 },
    { setting: 'default (fills the budget)', maxRecallLimit: undefined },
  ];
  const results: FillResult[] = [];
  for (const maxTokens of budgets) {
    for (const { setting, maxRecallLimit } of settings) {
      let recall = 0;
      let used = 0;
      let blocks = 0;
      let questions = 0;
      for (const corpus of corpora) {
        const index = createConversationIndex({ indexContext: 1 });
        index.append(corpus.documents);
        const retriever = createRetriever({
          sources: [index],
          ...(maxRecallLimit === undefined ? {} : { maxRecallLimit }),
        });
        for (const question of corpus.questions) {
          const result = await retriever.retrieve({ query: question.question, maxTokens, counter });
          const packed = new Set(result.blocks.map((block) => block.metadata.candidateId));
          recall += question.evidence.filter((id) => packed.has(id)).length / question.evidence.length;
          used += result.blocks.reduce((sum, block) => sum + block.tokens, 0) / maxTokens;
          blocks += result.blocks.length;
          questions++;
        }
      }
      results.push({
        setting,
        maxTokens,
        evidenceRecall: recall / questions,
        budgetUsed: used / questions,
        blocks: blocks / questions,
      });
    }
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const budgets = process.argv.slice(2).map(Number);
  for (const row of await retrieveFill(budgets.length > 0 ? budgets : [2000])) {
    const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
    process.stdout.write(
      `${row.maxTokens} tokens · ${row.setting}: evidence recall ${percent(row.evidenceRecall)}, budget used ${percent(row.budgetUsed)}, ${row.blocks.toFixed(1)} blocks\n`,
    );
  }
}
