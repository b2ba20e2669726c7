import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One indexed unit: a LoCoMo turn or a CMRC paragraph. */
export interface EvalDocument {
  id: string;
  text: string;
}

/** One question with the ids of the documents that answer it. */
export interface EvalQuestion {
  question: string;
  evidence: string[];
  category?: number;
}

/** A corpus searched by its own questions (one LoCoMo conversation, or all of CMRC). */
export interface EvalCorpus {
  name: string;
  documents: EvalDocument[];
  questions: EvalQuestion[];
}

/** What was dropped while loading, reported with the results. */
export interface LoadReport {
  questions: number;
  droppedEvidence: string[];
  droppedQuestions: number;
}

// `$CTXLOOM_DATA_DIR`, else ../shared/data next to the repository (read in place, never copied).
const dataRoot = `${(process.env.CTXLOOM_DATA_DIR ?? fileURLToPath(new URL('../../../shared/data/', import.meta.url))).replace(/\/$/, '')}/`;

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface LocomoSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ question: string; evidence: string[]; category: number }>;
}

/**
 * LoCoMo conversations (categories 1–4). Each turn is a document `Speaker: text` plus
 * `[image: caption]` when present. Evidence strings like `"D8:6; D9:17"` are split; ids that
 * name no turn are dropped and listed; questions left without evidence are dropped.
 */
export function loadLocomo(): { corpora: EvalCorpus[]; report: LoadReport } {
  const samples = JSON.parse(readFileSync(`${dataRoot}locomo/locomo-dev.json`, 'utf8')) as LocomoSample[];
  const report: LoadReport = { questions: 0, droppedEvidence: [], droppedQuestions: 0 };
  const corpora = samples.map((sample) => {
    const documents: EvalDocument[] = [];
    const sessions = Object.keys(sample.conversation)
      .filter((key) => /^session_\d+$/.test(key))
      .sort((left, right) => Number(left.slice(8)) - Number(right.slice(8)));
    for (const key of sessions) {
      for (const turn of sample.conversation[key] as LocomoTurn[]) {
        const caption = turn.blip_caption === undefined ? '' : ` [image: ${turn.blip_caption}]`;
        documents.push({ id: turn.dia_id, text: `${turn.speaker}: ${turn.text}${caption}` });
      }
    }
    const known = new Set(documents.map((document) => document.id));
    const questions: EvalQuestion[] = [];
    for (const item of sample.qa) {
      if (item.category === 5) continue;
      const evidence: string[] = [];
      for (const raw of item.evidence.flatMap((entry) => entry.split(/[;,]\s*/))) {
        const id = raw.trim();
        if (known.has(id)) evidence.push(id);
        else report.droppedEvidence.push(`${sample.sample_id}:${id}`);
      }
      if (evidence.length === 0) {
        report.droppedQuestions++;
        continue;
      }
      questions.push({ question: item.question, evidence: [...new Set(evidence)], category: item.category });
    }
    report.questions += questions.length;
    return { name: sample.sample_id, documents, questions };
  });
  return { corpora, report };
}

interface CmrcFile {
  data: Array<{
    title: string;
    paragraphs: Array<{ id: string; context: string; qas: Array<{ question: string }> }>;
  }>;
}

/** CMRC 2018 trial: every paragraph (title + context) is a document; its questions point at it. */
export function loadCmrc(): EvalCorpus {
  const file = JSON.parse(readFileSync(`${dataRoot}cmrc2018/cmrc2018-trial.json`, 'utf8')) as CmrcFile;
  const documents: EvalDocument[] = [];
  const questions: EvalQuestion[] = [];
  for (const article of file.data) {
    for (const paragraph of article.paragraphs) {
      documents.push({ id: paragraph.id, text: `${article.title}\n${paragraph.context}` });
      for (const qa of paragraph.qas) questions.push({ question: qa.question, evidence: [paragraph.id] });
    }
  }
  return { name: 'cmrc2018-trial', documents, questions };
}
