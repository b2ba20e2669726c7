import { type Message, messageText } from '../core/index.ts';

/** Why a message was judged important. */
export type ImportanceReason = 'decision' | 'requirement' | 'correction' | 'preference';

/** A score in 0..1 and the rules that fired. */
export interface ImportanceScore {
  score: number;
  reasons: ImportanceReason[];
}

/** Scores how much a message should survive in L2 (important memory). */
export type ImportanceScorer = (message: Message) => ImportanceScore;

interface Rule {
  reason: ImportanceReason;
  score: number;
  roles: readonly Message['role'][];
  pattern: RegExp;
}

const ANY: readonly Message['role'][] = ['user', 'assistant', 'system', 'tool'];

/**
 * The rules of {@link scoreImportance}, in English and Chinese. The score is the highest
 * matching rule's score (rules do not add up):
 * - `decision` 0.8 (any role): "we decided / agreed / settled on / will go with", "decision", 决定 / 确定 / 选定 / 定下来 / 就用
 * - `correction` 0.75 (user only): "no, …", "actually", "that's wrong", "I meant", "not what I", 不对 / 错了 / 我的意思是 / 纠正 / 更正
 * - `requirement` 0.7 (user and system): "must", "must not", "need to", "required", "requirement", "always", "never", "make sure", 必须 / 需要 / 要求 / 务必 / 不要 / 不能 / 禁止 / 一定要
 * - `preference` 0.6 (user only): "I prefer / like / love / hate / don't like", "my favourite", 我喜欢 / 更喜欢 / 偏好 / 我不喜欢
 */
export const IMPORTANCE_RULES: readonly Rule[] = [
  {
    reason: 'decision',
    score: 0.8,
    roles: ANY,
    pattern:
      /\b(?:we|i|they|let's)\s+(?:have\s+)?(?:decided|agreed|settled on|chose|will go with|go with)\b|\bdecision\b|决定|确定|选定|定下来|就用/iu,
  },
  {
    reason: 'correction',
    score: 0.75,
    roles: ['user'],
    pattern:
      /^\s*no\b[,.!]|\bactually\b|\bthat'?s (?:wrong|not right|incorrect)\b|\bi meant\b|\bnot what i\b|不对|错了|我的意思是|纠正|更正/iu,
  },
  {
    reason: 'requirement',
    score: 0.7,
    roles: ['user', 'system'],
    pattern:
      /\b(?:must|must not|need to|needs to|required?|requirement|always|never|make sure)\b|必须|需要|要求|务必|不要|不能|禁止|一定要/iu,
  },
  {
    reason: 'preference',
    score: 0.6,
    roles: ['user'],
    pattern:
      /\bi (?:really )?(?:prefer|like|love|hate|don'?t like)\b|\bmy favou?rite\b|我喜欢|更喜欢|偏好|我不喜欢/iu,
  },
];

/**
 * The default L2 scorer: pattern rules over the message text ({@link IMPORTANCE_RULES}),
 * highest matching score, 0 when none matches. Cheap and deterministic; replace it with a
 * model-based scorer through `MemoryStoreOptions.scorer` when that is worth a call.
 */
export function scoreImportance(message: Message): ImportanceScore {
  const text = messageText(message);
  let score = 0;
  const reasons: ImportanceReason[] = [];
  for (const rule of IMPORTANCE_RULES) {
    if (!rule.roles.includes(message.role) || !rule.pattern.test(text)) continue;
    reasons.push(rule.reason);
    score = Math.max(score, rule.score);
  }
  return { score, reasons };
}
