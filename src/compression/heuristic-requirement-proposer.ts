import { splitSentences } from '../core/split-sentences.ts';
import type { ProposedRequirementOp } from './requirement-proposal-schema.ts';
import type { RequirementProposer } from './requirement-proposer.ts';
import type { RequirementPriority, RequirementType } from './requirement-schema.ts';

/**
 * Requirement cue words of the offline heuristic (Chinese and English). A sentence becomes a
 * requirement only when it contains one of them. Politeness markers (`请`, `please`) are not
 * cues: they start work requests ("请更新一下 SQL") far more often than requirements.
 */
export const REQUIREMENT_CUES: readonly string[] = [
  '需要',
  '必须',
  '要求',
  '应该',
  '应当',
  '希望',
  '务必',
  '确保',
  '保证',
  '不要',
  '不能',
  '禁止',
  '只要',
  '只需',
  '输出',
  '输入',
  '口径',
  '验收',
  '按天',
  '增量',
  '全量',
  '分区',
  'must',
  'should',
  'need',
  'require',
  'want',
  "don't",
  'do not',
  'never',
  'ensure',
  'make sure',
  'has to',
  'have to',
  'only',
  'output',
  'input',
  'partition',
];

const TYPE_CUES: readonly [RequirementType, RegExp][] = [
  ['question', /[?？]|吗$|是否/u],
  ['acceptance', /验收|测试|校验|核对|\btests?\b|verify|accept|validate|check/iu],
  ['rule', /口径|定义|计算|公式|去重|统计|defined as|formula|metric|dedup|count|sum\b/iu],
  ['output', /输出|写入|落表|生成|目标表|output|write (to|into)|target table|produce/iu],
  ['input', /输入|来源|源表|读取|input|source|read from|\bfrom\b/iu],
  ['preference', /希望|最好|倾向|prefer|ideally|would like/iu],
];
const MUST = /必须|务必|一定|禁止|不能|不要|must|never|required|has to|have to|don't|do not/iu;
const COULD = /希望|最好|可以|可选|prefer|could|nice to have|ideally|optional/iu;
const RESET = /^(?:重新开始|全部重来|清空需求|从头开始|start over|reset (?:all|the) requirements)/iu;
const CANCEL = /取消|不需要了|去掉|作废|cancel|drop|no longer/iu;
const ID = /\b([A-Za-z][\w-]*#\d+|G\d+)\b/u;

/**
 * The offline requirement extractor — a documented heuristic, not a model. It splits the
 * message into sentences ({@link splitSentences}); a sentence starting with a reset phrase
 * proposes `reset`; one with a cancel word and an existing id proposes `cancel`; one with a
 * {@link REQUIREMENT_CUES} word proposes `add` with a type and priority read from keywords,
 * unless an open requirement already has that text. Quotes are the sentences themselves, so
 * they are verbatim. Recall is lower than a model's: use it without keys, in tests and as a
 * fallback.
 */
export function createHeuristicRequirementProposer(): RequirementProposer {
  const propose: RequirementProposer = async ({ snapshot, message }) => {
    const live = new Set(
      snapshot.items.filter((item) => item.status !== 'cancelled').map((item) => item.text),
    );
    const known = new Set(
      snapshot.items.filter((item) => item.status !== 'cancelled').map((item) => item.id),
    );
    const ops: ProposedRequirementOp[] = [];
    if (message.text.trim().startsWith('/')) return { ok: true, proposal: { ops } };
    for (const sentence of splitSentences(message.text)) {
      const quote = sentence.text;
      if (RESET.test(quote)) {
        ops.push({ op: 'reset', quote });
        known.clear();
        continue;
      }
      const id = ID.exec(quote)?.[1];
      if (id !== undefined && CANCEL.test(quote) && known.has(id)) {
        ops.push({ op: 'cancel', id, quote });
        known.delete(id);
        continue;
      }
      const lower = quote.toLowerCase();
      if (!REQUIREMENT_CUES.some((cue) => lower.includes(cue)) || live.has(quote)) continue;
      live.add(quote);
      ops.push({ op: 'add', type: classify(quote), priority: prioritise(quote), text: quote, quote });
    }
    return { ok: true, proposal: { ops } };
  };
  return Object.assign(propose, { label: 'offline-heuristic' });
}

function classify(sentence: string): RequirementType {
  for (const [type, pattern] of TYPE_CUES) if (pattern.test(sentence)) return type;
  return 'constraint';
}

function prioritise(sentence: string): RequirementPriority {
  if (MUST.test(sentence)) return 'must';
  if (COULD.test(sentence)) return 'could';
  return 'should';
}
