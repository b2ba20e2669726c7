import { createBm25Index } from '../retrieval/bm25-index.ts';

/** A passage of the compiled context the offline model may quote. */
export interface Passage {
  /** Where it comes from, e.g. `guidance.md:12-30` or the heading it sits under. */
  label: string;
  text: string;
}

/** Language of an offline answer: the question's. */
export type AnswerLanguage = 'zh' | 'en';

/** What the user sent: the question and the passages of the references they attached. */
export interface ParsedQuery {
  /** The question without reference markers and attached passages. */
  question: string;
  /** `<reference source="…">` passages the compiler merged into the message, in order. */
  references: Passage[];
}

const REFERENCE_ELEMENT = /<reference source="([^"]*)"(?: block="([^"]*)")?>\n([\s\S]*?)\n<\/reference>/gu;
const REFERENCE_MARKER = /\[[^\]\n]+?(?::\d+:\d+|#[^\]\n]+)\]/gu;

/**
 * Splits a compiled user message into the question and the reference passages the workspace
 * compiler appended (`<reference source="file:12-30" block="…">…</reference>`).
 */
export function parseQuery(text: string): ParsedQuery {
  const references: Passage[] = [];
  for (const match of text.matchAll(REFERENCE_ELEMENT)) {
    const [, source = '', block, body = ''] = match;
    references.push({ label: block === undefined ? source : `${source} #${block}`, text: body.trim() });
  }
  const first = text.search(/<reference source="/u);
  const question = (first < 0 ? text : text.slice(0, first))
    .replace(REFERENCE_MARKER, ' ')
    .replace(/\s+/gu, ' ');
  return { question: question.trim(), references };
}

/** Chinese when the question has more CJK ideographs than Latin letters, else English. */
export function detectLanguage(text: string): AnswerLanguage {
  const cjk = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const latin = text.match(/[A-Za-z]/gu)?.length ?? 0;
  return cjk > 0 && cjk * 2 >= latin ? 'zh' : 'en';
}

/**
 * The `limit` passages most relevant to `question`, by the same BM25 index and analyzer
 * retrieval uses (NFKC, zh/en stopwords, CJK n-grams), so Chinese questions match Chinese
 * passages without a segmenter. Passages that share no term with the question are left out.
 */
export function rankPassages(question: string, passages: readonly Passage[], limit = 3): Passage[] {
  const index = createBm25Index();
  passages.forEach((passage, position) => {
    index.add(String(position), passage.text);
  });
  return index
    .search(question, { limit })
    .map((hit) => passages[Number(hit.id)])
    .filter((passage): passage is Passage => passage !== undefined);
}

/**
 * Splits a text into paragraph passages (blank-line separated). Each is labelled with the
 * nearest heading above it (`# 学习目标` → `学习目标`), or `fallback` when there is none;
 * a heading alone is merged into the paragraph after it.
 */
export function splitPassages(fallback: string, text: string): Passage[] {
  const passages: Passage[] = [];
  let heading: string | undefined;
  let pending = '';
  for (const raw of text.split(/\n\s*\n/u)) {
    const paragraph = raw.trim();
    if (paragraph === '') continue;
    const title = /^#{1,6}\s+(.+)$/u.exec(paragraph.split('\n')[0] ?? '')?.[1]?.trim();
    if (title !== undefined) heading = title;
    if (title !== undefined && !paragraph.includes('\n')) {
      pending = `${pending}${paragraph}\n`;
      continue;
    }
    passages.push({ label: heading ?? fallback, text: `${pending}${paragraph}` });
    pending = '';
  }
  if (pending.trim() !== '') passages.push({ label: heading ?? fallback, text: pending.trim() });
  return passages;
}

/** Everything an offline answer is built from. */
export interface OfflineAnswerInput {
  query: ParsedQuery;
  /** Passages of the compiled context and earlier messages. */
  passages: readonly Passage[];
  language: AnswerLanguage;
  /** Most context passages quoted after the references. Default 3. */
  limit?: number;
}

const TEXT = {
  en: {
    label: '[offline model — no LLM configured]',
    note: 'This is not a generated answer: it quotes what the compiled context holds for your question.',
    attached: 'The passages you referenced',
    relevant: 'The most relevant passages in the context',
    nothing: 'Nothing in the compiled context matches this question.',
    hint: 'Set CTXLOOM_MODEL (openai:<model>, anthropic:<model> or openai-compatible:<baseURL>#<model>) for a real model.',
    context: 'context',
    message: (role: string) => `${role} message`,
    reading: (path: string) => `Reading ${path}.`,
    returned: (tool: string) => `${tool} returned:`,
    failed: (tool: string) => `${tool} failed:`,
  },
  zh: {
    label: '[离线模型 — 未配置 LLM]',
    note: '这不是生成的回答：以下是编译后的上下文中与你的问题相关的原文。',
    attached: '你引用的段落',
    relevant: '上下文中最相关的段落',
    nothing: '编译后的上下文中没有与这个问题相关的内容。',
    hint: '设置 CTXLOOM_MODEL（openai:<模型>、anthropic:<模型> 或 openai-compatible:<baseURL>#<模型>）即可使用真实模型。',
    context: '上下文',
    message: (role: string) => (role === 'user' ? '用户消息' : '助手消息'),
    reading: (path: string) => `正在读取 ${path}。`,
    returned: (tool: string) => `${tool} 返回：`,
    failed: (tool: string) => `${tool} 失败：`,
  },
} as const;

/** The fixed phrases of offline answers, per language. */
export function offlineText(language: AnswerLanguage) {
  return TEXT[language];
}

/**
 * The offline answer, as Markdown in the question's language: the label, then the passages
 * the user referenced (all of them, in order), then the context passages that best match the
 * question and are not already quoted, each with its source, then how to use a real model.
 */
export function composeOfflineAnswer(input: OfflineAnswerInput): string {
  const text = TEXT[input.language];
  const lines = [`**${text.label}** ${text.note}`];
  const quote = (passage: Passage) => {
    const body = passage.text.length > 700 ? `${passage.text.slice(0, 699)}…` : passage.text;
    lines.push('', body.replace(/^/gmu, '> '), `— *${passage.label}*`);
  };
  if (input.query.references.length > 0) {
    lines.push('', `### ${text.attached}`);
    for (const reference of input.query.references) quote(reference);
  }
  const quoted = new Set(input.query.references.map((reference) => reference.text));
  const candidates = input.passages.filter(
    (passage) => ![...quoted].some((text) => text.includes(passage.text) || passage.text.includes(text)),
  );
  const best =
    input.query.question === '' ? [] : rankPassages(input.query.question, candidates, input.limit ?? 3);
  if (best.length > 0) {
    lines.push('', `### ${text.relevant}`);
    for (const passage of best) quote(passage);
  } else if (input.query.references.length === 0) {
    lines.push('', text.nothing);
  }
  lines.push('', `*${text.hint}*`);
  return lines.join('\n');
}
