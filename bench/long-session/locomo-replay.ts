import { readFileSync } from 'node:fs';
import { dataDirectory } from '../lib/index.ts';

/** One turn of a replayed conversation: the user's message and the scripted answer. */
export interface ReplayTurn {
  user: string;
  answer: string;
  /** LoCoMo dialogue ids in the user message and in the answer. */
  userDiaIds: string[];
  answerDiaIds: string[];
  /** When the turn happened (the LoCoMo session's date, plus a minute per turn). */
  at: Date;
}

/** A LoCoMo question with the ids of its evidence turns. */
export interface ReplayQuestion {
  question: string;
  evidence: string[];
  category: number;
}

/** One LoCoMo conversation as a session to replay. */
export interface ReplayConversation {
  id: string;
  turns: ReplayTurn[];
  questions: ReplayQuestion[];
  /** Evidence strings dropped (malformed or naming no turn), for the report. */
  droppedEvidence: string[];
  /** Questions left with no evidence and dropped. */
  droppedQuestions: number;
}

interface LocomoSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ question: string; evidence: string[]; category: number }>;
}

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/**
 * The LoCoMo conversations (Maharana et al., ACL 2024; CC BY-NC 4.0) as sessions to replay:
 * speaker A's turns are the user's messages, speaker B's the model's answers (consecutive
 * turns of one speaker joined), each turn dated by its LoCoMo session. Questions of
 * categories 1–4 (5 is adversarial); evidence strings like `"D8:6; D9:17"` split, ids that
 * name no turn dropped and counted.
 */
export function loadLocomoReplays(): ReplayConversation[] {
  const path = `${dataDirectory().replace(/\/$/u, '')}/locomo/locomo-dev.json`;
  const samples = JSON.parse(readFileSync(path, 'utf8')) as LocomoSample[];
  return samples.map((sample) => {
    const conversation = sample.conversation;
    const speakerA = conversation.speaker_a as string;
    const sessions = Object.keys(conversation)
      .filter((key) => /^session_\d+$/u.test(key))
      .sort((left, right) => Number(left.slice(8)) - Number(right.slice(8)));
    const turns: ReplayTurn[] = [];
    const known = new Set<string>();
    let pending:
      | { user: string[]; userIds: string[]; answer: string[]; answerIds: string[]; at: Date }
      | undefined;
    const flush = () => {
      if (pending === undefined || pending.user.length === 0) return;
      turns.push({
        user: pending.user.join('\n'),
        answer: pending.answer.join('\n') || '…',
        userDiaIds: pending.userIds,
        answerDiaIds: pending.answerIds,
        at: pending.at,
      });
      pending = undefined;
    };
    for (const key of sessions) {
      const date = parseLocomoDate(String(conversation[`${key}_date_time`] ?? ''));
      let minute = 0;
      for (const turn of conversation[key] as LocomoTurn[]) {
        known.add(turn.dia_id);
        const text =
          turn.blip_caption === undefined ? turn.text : `${turn.text} [image: ${turn.blip_caption}]`;
        const at = new Date(date.getTime() + minute++ * 60_000);
        if (turn.speaker === speakerA) {
          if (pending !== undefined && pending.answer.length > 0) flush();
          pending ??= { user: [], userIds: [], answer: [], answerIds: [], at };
          pending.user.push(text);
          pending.userIds.push(turn.dia_id);
        } else if (pending === undefined) {
          // A conversation opened by speaker B: its first turn is a user message too.
          pending = { user: [text], userIds: [turn.dia_id], answer: [], answerIds: [], at };
        } else {
          pending.answer.push(text);
          pending.answerIds.push(turn.dia_id);
        }
      }
      flush();
    }
    const droppedEvidence: string[] = [];
    let droppedQuestions = 0;
    const questions: ReplayQuestion[] = [];
    for (const item of sample.qa) {
      if (item.category === 5) continue;
      const evidence: string[] = [];
      for (const raw of item.evidence) {
        for (const id of raw.split(';').map((part) => part.trim())) {
          if (known.has(id)) evidence.push(id);
          else droppedEvidence.push(id);
        }
      }
      if (evidence.length === 0) droppedQuestions++;
      else questions.push({ question: item.question, evidence, category: item.category });
    }
    return { id: sample.sample_id, turns, questions, droppedEvidence, droppedQuestions };
  });
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** `1:56 pm on 8 May, 2023` → a UTC date (invalid text: 2023-01-01). */
function parseLocomoDate(text: string): Date {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/iu.exec(text);
  if (match === null) return new Date(Date.UTC(2023, 0, 1));
  const [, hour, minute, half, day, month, year] = match;
  const hours = (Number(hour) % 12) + ((half ?? '').toLowerCase() === 'pm' ? 12 : 0);
  const monthIndex = Math.max(0, MONTHS.indexOf((month ?? '').toLowerCase()));
  return new Date(Date.UTC(Number(year), monthIndex, Number(day), hours, Number(minute)));
}
