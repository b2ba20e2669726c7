import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One dialogue turn of LoCoMo. */
export interface LocomoTurn {
  /** Conversation id, e.g. `conv-26`. */
  sampleId: string;
  /** Session number (1-based). */
  session: number;
  /** Turn id, e.g. `D3:7`. */
  diaId: string;
  speaker: string;
  text: string;
}

/** One CMRC 2018 paragraph with its article title and questions. */
export interface CmrcParagraph {
  /** Article id. */
  articleId: string;
  id: string;
  title: string;
  context: string;
  questions: string[];
}

/**
 * The shared evaluation data folder: `$CTXLOOM_DATA_DIR`, else `../shared/data` next to the
 * repository (see `../shared/data/README.md`). Data is read in place, never copied.
 */
export function dataDirectory(): string {
  return process.env.CTXLOOM_DATA_DIR ?? fileURLToPath(new URL('../../../shared/data/', import.meta.url));
}

function readJson(relativePath: string): unknown {
  const path = `${dataDirectory().replace(/\/$/, '')}/${relativePath}`;
  if (!existsSync(path)) {
    throw new Error(
      `Benchmark data not found: ${path}. The benchmarks read LoCoMo and CMRC 2018 from ../shared/data ` +
        '(see bench/README.md); set CTXLOOM_DATA_DIR to the folder that holds locomo/ and cmrc2018/.',
    );
  }
  return JSON.parse(readFileSync(path, 'utf8'));
}

interface RawLocomoSample {
  sample_id: string;
  conversation: Record<string, unknown>;
}

/** Every turn of `locomo/locomo-dev.json`, in conversation and session order. */
export function loadLocomoTurns(): LocomoTurn[] {
  const samples = readJson('locomo/locomo-dev.json') as RawLocomoSample[];
  const turns: LocomoTurn[] = [];
  for (const sample of samples) {
    const sessions = Object.keys(sample.conversation)
      .map((key) => /^session_(\d+)$/.exec(key))
      .filter((match) => match !== null)
      .map((match) => Number(match[1]))
      .sort((a, b) => a - b);
    for (const session of sessions) {
      const raw = sample.conversation[`session_${session}`] as {
        speaker: string;
        dia_id: string;
        text: string;
      }[];
      for (const turn of raw) {
        turns.push({
          sampleId: sample.sample_id,
          session,
          diaId: turn.dia_id,
          speaker: turn.speaker,
          text: turn.text,
        });
      }
    }
  }
  return turns;
}

interface RawCmrc {
  data: {
    id: string;
    title: string;
    paragraphs: { id: string; context: string; qas: { question: string }[] }[];
  }[];
}

/** Every paragraph of `cmrc2018/cmrc2018-trial.json`. */
export function loadCmrcParagraphs(): CmrcParagraph[] {
  const raw = readJson('cmrc2018/cmrc2018-trial.json') as RawCmrc;
  return raw.data.flatMap((article) =>
    article.paragraphs.map((paragraph) => ({
      articleId: article.id,
      id: paragraph.id,
      title: article.title,
      context: paragraph.context,
      questions: paragraph.qas.map((qa) => qa.question),
    })),
  );
}
