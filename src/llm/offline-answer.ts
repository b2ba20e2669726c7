import { createBm25Index } from '../retrieval/bm25-index.ts';

/** A passage of the compiled context the offline model may quote. */
export interface Passage {
  /** Where it comes from, e.g. `guidance.md:12-30` or the heading it sits under. */
  label: string;
  text: string;
}

/** Language of an offline answer: the question's. */
export type AnswerLanguage = 'zh' | 'en';

/** What the user sent: the question and the passages of the references attached to it. */
export interface ParsedQuery {
  /** The question without reference markers and attached passages. */
  question: string;
  /** Passages of the references the user wrote in the question (`[file:12:30]`, `[file#a/b]`), in order. */
  references: Passage[];
  /** Passages the session attaches to every query (the manifest's `references`), in order. */
  attached: Passage[];
}

const REFERENCE_ELEMENT = /<reference source="([^"]*)"(?: block="([^"]*)")?>\n([\s\S]*?)\n<\/reference>/gu;
const REFERENCE_MARKER = /\[[^\]\n]+?(?::\d+:\d+|#[^\]\n]+)\]/gu;

/**
 * Splits a compiled user message into the question and the reference passages the workspace
 * compiler appended (`<reference source="file:12-30" block="…">…</reference>`): those the
 * question names with a marker are the user's, the rest are the session's standing ones.
 */
export function parseQuery(text: string): ParsedQuery {
  const first = text.search(/<reference source="/u);
  const head = first < 0 ? text : text.slice(0, first);
  const markers = new Set(Array.from(head.matchAll(REFERENCE_MARKER), (match) => match[0]));
  const references: Passage[] = [];
  const attached: Passage[] = [];
  for (const match of text.matchAll(REFERENCE_ELEMENT)) {
    const [, source = '', block, body = ''] = match;
    const file = source.replace(/:\d+-\d+$/u, '');
    const lines = /:(\d+)-(\d+)$/u.exec(source);
    const cited =
      (block !== undefined && markers.has(`[${file}#${block}]`)) ||
      (lines !== null && markers.has(`[${file}:${lines[1]}:${lines[2]}]`));
    // A line reference is labelled with the heading it starts at, when it starts at one.
    const heading = /^#{1,6}\s+(.+)$/u.exec(body.trim().split('\n')[0] ?? '')?.[1]?.trim();
    const passage = {
      label:
        block !== undefined
          ? `${file} › ${block.replace(/\//gu, ' › ')}`
          : heading === undefined
            ? source
            : `${source} › ${heading}`,
      text: body.trim(),
    };
    (cited ? references : attached).push(passage);
  }
  const question = head.replace(REFERENCE_MARKER, ' ').replace(/\s+/gu, ' ');
  return { question: question.trim(), references, attached };
}

/**
 * Names in a question that are no words of its language: code spans, and anything with a dot
 * between letters or digits — file names and paths (`ground-truth.md`, `docs/a.json`), URLs.
 */
const NAMES = /`[^`\n]*`|\S*[A-Za-z0-9_]\.[A-Za-z0-9]\S*/gu;

/**
 * Chinese when the question has at least as many CJK ideographs as Latin words ("什么是 Leader
 * Completeness？" is Chinese, "What does 任期 mean?" English), else English. File names, paths,
 * URLs and code spans are not counted as Latin words: "打开 ground-truth.md" is Chinese.
 */
export function detectLanguage(text: string): AnswerLanguage {
  const cjk = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const latinWords = text.replace(NAMES, ' ').match(/[A-Za-z]+/gu)?.length ?? 0;
  return cjk > 0 && cjk >= latinWords ? 'zh' : 'en';
}

/**
 * The `limit` passages most relevant to `question`, by the same BM25 index and analyzer
 * retrieval uses (NFKC, zh/en stopwords, CJK n-grams) over each passage's label and text, so
 * Chinese questions match Chinese passages without a segmenter. A passage whose own heading
 * the question names ("提交规则是什么？" → `… › 提交规则`) comes first — it is the passage the
 * question asks for — then those under a named heading. Passages that share no term with the
 * question, or (unless named) score under 60 % of the best match, are left out.
 */
export function rankPassages(question: string, passages: readonly Passage[], limit = 3): Passage[] {
  const index = createBm25Index();
  passages.forEach((passage, position) => {
    index.add(String(position), `${passage.label}\n${passage.text}`);
  });
  const hits = index.search(question, { limit: Math.max(limit, passages.length) });
  // 2: the question names the passage's own heading; 1: a heading above it; 0: neither. A
  // heading is named whole or by its part after a colon ("第四步：日志复制" by "日志复制").
  const names = (heading: string | undefined) =>
    heading !== undefined &&
    [heading, heading.split(/[:：]/u).at(-1) ?? ''].some(
      (name) => name.trim().length >= 2 && question.includes(name.trim()),
    );
  const named = (passage: Passage) => {
    const headings = passage.label.split(' › ').map((heading) => heading.trim());
    if (names(headings.at(-1))) return 2;
    return headings.slice(0, -1).some(names) ? 1 : 0;
  };
  const top = hits[0]?.score ?? 0;
  const ranked = hits.flatMap((hit) => {
    const passage = passages[Number(hit.id)];
    return passage === undefined ? [] : [{ passage, rank: named(passage), score: hit.score }];
  });
  // Named passages come first; any other far behind the best match is noise beside them (a
  // long checklist sharing one word).
  return [
    ...ranked.filter((hit) => hit.rank === 2),
    ...ranked.filter((hit) => hit.rank === 1),
    ...ranked.filter((hit) => hit.rank === 0 && hit.score >= top * MIN_RELATIVE_SCORE),
  ]
    .slice(0, limit)
    .map((hit) => hit.passage);
}

/** Share of the best BM25 score a passage needs to be quoted beside it (0..1). */
const MIN_RELATIVE_SCORE = 0.6;

const BLOCK_MARKER = /^\[([^\]\n#]+)#([^\]\n]+)\]$/u;

/**
 * Splits a text into paragraph passages (blank-line separated). Each is labelled with where it
 * sits: after a retrieved block's `[file.md#a/b]` line, `file.md › a › b`; under Markdown
 * headings, their path (`学习目标 › 已有基础`); else `fallback`. A heading or block line alone
 * is merged into the paragraph after it.
 */
export function splitPassages(fallback: string, text: string): Passage[] {
  const passages: Passage[] = [];
  const headings: { level: number; title: string }[] = [];
  let block: string | undefined;
  let pending = '';
  const label = () =>
    block ?? (headings.length === 0 ? fallback : headings.map((heading) => heading.title).join(' › '));
  for (const raw of text.split(/\n\s*\n/u)) {
    let paragraph = raw.trim();
    if (paragraph === '') continue;
    const marker = BLOCK_MARKER.exec(paragraph.split('\n')[0] ?? '');
    if (marker !== null) {
      block = `${marker[1]} › ${(marker[2] ?? '').replace(/\//gu, ' › ')}`;
      headings.length = 0;
      paragraph = paragraph.split('\n').slice(1).join('\n').trim();
      if (paragraph === '') continue;
    }
    const heading = /^(#{1,6})\s+(.+)$/u.exec(paragraph.split('\n')[0] ?? '');
    if (heading !== null) {
      const level = heading[1]?.length ?? 1;
      while ((headings.at(-1)?.level ?? 0) >= level) headings.pop();
      headings.push({ level, title: heading[2]?.trim() ?? '' });
      block = undefined;
      if (!paragraph.includes('\n')) {
        pending = `${pending}${paragraph}\n`;
        continue;
      }
    }
    passages.push({ label: label(), text: `${pending}${paragraph}` });
    pending = '';
  }
  if (pending.trim() !== '') passages.push({ label: label(), text: pending.trim() });
  return passages;
}

/** Everything an offline answer is built from. */
export interface OfflineAnswerInput {
  query: ParsedQuery;
  /** Passages of the compiled context (system prompt excluded): layers, retrieved blocks. */
  passages: readonly Passage[];
  /** Passages of earlier messages: quoted only when nothing in the context matches. */
  messages?: readonly Passage[];
  language: AnswerLanguage;
  /** Most passages quoted after the user's references (1..10). Default 2. */
  limit?: number;
}

// Model names in code spans: the notebook renders answers as Markdown, where a bare `<model>`
// is an HTML tag and disappears.
const TEXT = {
  en: {
    label: '[offline model — no LLM configured]',
    note: 'This is not a generated answer: it quotes what the compiled context holds for your question.',
    attached: 'The passages you referenced',
    relevant: 'The most relevant passages in the context',
    nothing: 'Nothing in the compiled context matches this question.',
    hint: 'Set `CTXLOOM_MODEL` to `openai:<model>`, `anthropic:<model>` or `openai-compatible:<baseURL>#<model>` for a real model.',
    context: 'context',
    message: (role: string) => `${role} message`,
    reading: (path: string) => `Reading ${path}.`,
    returned: (tool: string) => `${tool} returned:`,
    failed: (tool: string) => `${tool} failed:`,
    denied: 'execution denied',
    otherContent: '[content]',
  },
  zh: {
    label: '[离线模型 — 未配置 LLM]',
    note: '这不是生成的回答：以下是编译后的上下文中与你的问题相关的原文。',
    attached: '你引用的段落',
    relevant: '上下文中最相关的段落',
    nothing: '编译后的上下文中没有与这个问题相关的内容。',
    hint: '把 `CTXLOOM_MODEL` 设为 `openai:<模型>`、`anthropic:<模型>` 或 `openai-compatible:<baseURL>#<模型>` 即可使用真实模型。',
    context: '上下文',
    message: (role: string) => (role === 'user' ? '用户消息' : '助手消息'),
    reading: (path: string) => `正在读取 ${path}。`,
    returned: (tool: string) => `${tool} 返回：`,
    failed: (tool: string) => `${tool} 失败：`,
    denied: '执行被拒绝',
    otherContent: '[内容]',
  },
} as const;

/** The fixed phrases of offline answers, per language. */
export function offlineText(language: AnswerLanguage) {
  return TEXT[language];
}

/** A passage's words without headings, block lines and spacing: what two quotes of the same text share. */
function essence(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/^#{1,6}\s/u.test(line) && !BLOCK_MARKER.test(line.trim()))
    .join('')
    .replace(/[\s>*`_-]+/gu, '');
}

/**
 * The offline answer, as Markdown in the question's language: the label, then the passages
 * the user referenced (all, in order), then the passages the question asks for — the context
 * first (a block whose heading it names leads), earlier messages only when the context has
 * nothing — each quoted once with its file and heading, then how to use a real model.
 */
export function composeOfflineAnswer(input: OfflineAnswerInput): string {
  const text = TEXT[input.language];
  const limit = Math.min(10, Math.max(1, input.limit ?? 2));
  const lines = [`**${text.label}** ${text.note}`];
  const quoted: string[] = [];
  const seen = (passage: Passage) => {
    const body = essence(passage.text);
    return body === '' || quoted.some((other) => other.includes(body) || body.includes(other));
  };
  const quote = (passage: Passage) => {
    quoted.push(essence(passage.text));
    const body = passage.text.length > 700 ? `${passage.text.slice(0, 699)}…` : passage.text;
    // A blank line before the label: right after a quote it would continue the quote's paragraph.
    lines.push('', body.replace(/^/gmu, '> '), '', `— *${passage.label}*`);
  };
  if (input.query.references.length > 0) {
    lines.push('', `### ${text.attached}`);
    for (const reference of input.query.references) if (!seen(reference)) quote(reference);
  }
  const pick = (passages: readonly Passage[]) =>
    input.query.question === ''
      ? []
      : rankPassages(
          input.query.question,
          passages.filter((passage) => !seen(passage)),
          limit,
        );
  let best = pick([...input.query.attached, ...input.passages]);
  if (best.length === 0) best = pick(input.messages ?? []);
  if (best.length > 0) {
    lines.push('', `### ${text.relevant}`);
    for (const passage of best) if (!seen(passage)) quote(passage);
  } else if (input.query.references.length === 0) {
    lines.push('', text.nothing);
  }
  lines.push('', `*${text.hint}*`);
  return lines.join('\n');
}
