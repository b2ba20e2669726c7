import { type CmrcParagraph, type LocomoTurn, loadCmrcParagraphs, loadLocomoTurns } from '../lib/data.ts';

/** Texts of one language, split into the half the estimator was fitted on and the held-out half. */
export interface EstimatorSplit {
  fit: string[];
  heldOut: string[];
}

/** The fitting and held-out texts of each language, plus held-out mixed Chinese–English texts. */
export interface EstimatorCorpus {
  english: EstimatorSplit;
  chinese: EstimatorSplit;
  /** Held-out only: a Chinese paragraph sentence joined with an English turn. */
  mixed: string[];
}

const ENGLISH_FIT_CONVERSATIONS = new Set(['conv-26', 'conv-30', 'conv-41', 'conv-42']);

/**
 * LoCoMo turns split by conversation (conv-26/30/41/42 fit, conv-43/44/47 held out) and CMRC
 * paragraphs split by article (even article index fit, odd held out), so no held-out text
 * shares a conversation or article with the fitting half.
 */
export function loadEstimatorCorpus(): EstimatorCorpus {
  const turns: LocomoTurn[] = loadLocomoTurns();
  const paragraphs: CmrcParagraph[] = loadCmrcParagraphs();
  const english: EstimatorSplit = { fit: [], heldOut: [] };
  for (const turn of turns)
    (ENGLISH_FIT_CONVERSATIONS.has(turn.sampleId) ? english.fit : english.heldOut).push(turn.text);
  const articleIndex = new Map<string, number>();
  for (const paragraph of paragraphs) {
    if (!articleIndex.has(paragraph.articleId)) articleIndex.set(paragraph.articleId, articleIndex.size);
  }
  const chinese: EstimatorSplit = { fit: [], heldOut: [] };
  for (const paragraph of paragraphs) {
    const text = `${paragraph.title}\n${paragraph.context}`;
    ((articleIndex.get(paragraph.articleId) ?? 0) % 2 === 0 ? chinese.fit : chinese.heldOut).push(text);
  }
  const mixed = chinese.heldOut.map((text, index) => {
    const sentence = text
      .split(/(?<=。)/u)
      .slice(0, 2)
      .join('');
    return `${sentence} ${english.heldOut[(index * 7) % english.heldOut.length]}`;
  });
  return { english, chinese, mixed };
}
