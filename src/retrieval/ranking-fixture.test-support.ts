import { createCharCounter } from '../testing/index.ts';
import { createConversationIndex } from './conversation-index.ts';
import { createKnowledgeBase } from './knowledge-base.ts';
import { createRetriever } from './retriever.ts';

/**
 * Test support: a deterministic two-speaker conversation of 480 turns (English sessions with
 * image captions, repeated small talk, a few Chinese and mixed-script turns) and 48 questions
 * about it, built from fixed sentence templates and a seeded PRNG. Large enough that a query
 * matches more turns than it recalls (MaxScore pruning, top-k cut-offs, ties) and that passages
 * recur across queries (the reranker's caches). Not LoCoMo: benches read the real data set.
 */

export interface FixtureTurn {
  id: string;
  text: string;
}

export interface RankingFixture {
  turns: FixtureTurn[];
  questions: string[];
}

const SPEAKERS = ['Maya', 'Tom'] as const;
const PLACES = [
  'the farmers market',
  'Lake Tahoe',
  'the climbing gym',
  'Lisbon',
  'the public library',
  'the pottery studio',
  'the animal shelter',
  'Grandma’s house',
  'the jazz club',
  'the community garden',
];
const THINGS = [
  'a vintage camera',
  'running shoes',
  'a sourdough starter',
  'a used guitar',
  'watercolor paints',
  'a telescope',
  'hiking poles',
  'a cookbook about Thai food',
  'a puzzle with 2000 pieces',
  'noise-cancelling headphones',
];
const PEOPLE = ['Dana', 'her brother Sam', 'Coach Rivera', 'the twins', 'Mrs. Okafor', 'Leo', 'Priya'];
const DAYS = [
  'Monday',
  'last weekend',
  'Friday night',
  'in March',
  'yesterday',
  'on her birthday',
  'in July',
];
const HOBBIES = [
  'painting',
  'running',
  'baking bread',
  'playing chess',
  'volunteering',
  'gardening',
  'swimming',
];

const TEMPLATES = [
  'I went to {place} {day} with {person}.',
  'I finally bought {thing}! It was on sale.',
  '{person} recommended {place}, so we are going {day}.',
  'I have been {hobby} a lot lately, it keeps me calm.',
  'Did you ever try {hobby}? I started {day}.',
  'We celebrated {person}’s promotion at {place}.',
  'My car broke down on the way to {place}, what a mess.',
  'I signed up for a {hobby} class that meets every {day2}.',
  'Remember {thing}? I gave it to {person} as a gift.',
  'I ran a 10k race {day} and finished in 52 minutes.',
  'The adoption at {place} went through, we named the puppy Biscuit.',
  'I am reading a novel about a lighthouse keeper, it is slow but lovely.',
  '{person} and I talked for hours about moving to {place}.',
  'Work has been stressful, my manager keeps moving the deadline.',
  'I lost {thing} at {place}, can you believe it?',
  'We planted tomatoes and basil at {place} {day}.',
  'My therapist suggested journaling every morning.',
  'I made pancakes for {person} and burnt the first three.',
  'The concert at {place} was amazing, the drummer was incredible.',
  'I’m saving up for {thing}, maybe by {day2}.',
];
const REPLIES = [
  'That sounds wonderful!',
  'Oh no, I’m sorry to hear that.',
  'Wow, how did it go?',
  'Thanks, talk soon!',
  'Haha, classic.',
  'You deserve it.',
  'Tell me more about it.',
];
const CAPTIONS = [
  'a photo of a dog on a beach',
  'a painting of a sunset over the lake',
  'a plate of pancakes with berries',
  'a group of people at a concert',
  'a garden with tomato plants',
];
const CHINESE = [
  '我上周去了图书馆，借了三本关于园艺的书。',
  '周末我们在社区花园种了西红柿和罗勒。',
  '她送给我一台老式相机作为生日礼物。',
  '我最近在学做酸面包，第一次烤焦了。',
  'OAuth2令牌一小时后过期，记得刷新。',
];
const DAYS2 = ['Tuesday', 'Thursday', 'Saturday', 'December', 'spring'];

const QUESTION_TEMPLATES = [
  'When did {speaker} go to {place}?',
  'Who did {speaker} go to {place} with?',
  'What did {speaker} buy?',
  'What did {speaker} give to {person}?',
  'What hobby did {speaker} start {day}?',
  'Where did they celebrate the promotion?',
  'What did {speaker} lose at {place}?',
  'How long did the 10k race take?',
  'What is the name of the puppy?',
  'What did they plant at the community garden?',
  'What book is {speaker} reading?',
  'Why is work stressful for {speaker}?',
  'What did {speaker} cook for {person}?',
  '谁送了老式相机？',
  '他们在花园种了什么',
  'When does the OAuth2 token expire?',
];

/**
 * The fixture (same output on every call). `seed` picks another conversation of the same shape.
 */
export function buildRankingFixture(seed = 20261128): RankingFixture {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const fill = (template: string, speaker: string): string =>
    template
      .replaceAll('{place}', pick(PLACES))
      .replaceAll('{thing}', pick(THINGS))
      .replaceAll('{person}', pick(PEOPLE))
      .replaceAll('{day2}', pick(DAYS2))
      .replaceAll('{day}', pick(DAYS))
      .replaceAll('{hobby}', pick(HOBBIES))
      .replaceAll('{speaker}', speaker);
  const turns: FixtureTurn[] = [];
  for (let session = 1; turns.length < 480; session++) {
    const length = 16 + Math.floor(random() * 24);
    for (let turn = 1; turn <= length && turns.length < 480; turn++) {
      const speaker = SPEAKERS[(turn + session) % 2] as string;
      const roll = random();
      let text: string;
      if (roll < 0.05) text = pick(CHINESE);
      else if (roll < 0.3) text = pick(REPLIES);
      else text = fill(pick(TEMPLATES), speaker);
      if (random() < 0.08) text += ` [image: ${pick(CAPTIONS)}]`;
      turns.push({ id: `D${session}:${turn}`, text: `${speaker}: ${text}` });
    }
  }
  const questions: string[] = [];
  for (let index = 0; index < 48; index++) {
    questions.push(fill(QUESTION_TEMPLATES[index % QUESTION_TEMPLATES.length] as string, pick(SPEAKERS)));
  }
  return { turns, questions };
}

function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the pinned rankings record: every id, score and signal, rounded to nothing. */
export interface RankingRecord {
  /** Full retriever, no history, 0-token budget: ranked `[id, finalScore, signal values]`. */
  retrieve: Array<{ query: string; ranked: Array<[string, number, number[]]> }>;
  /** Full retriever with the 5 turns before a point as history and an 800-character budget. */
  withHistory: Array<{
    query: string;
    rewritten: string;
    ranked: string[];
    blocks: Array<[string, number, boolean]>;
  }>;
  /** BM25 of an index with 3 neighbours a side, filtered to odd turns, top 60 (session recall's path). */
  filtered: Array<{ query: string; hits: Array<[string, number]> }>;
  /** Knowledge base over paragraphs of 6 turns, full retriever: ranked `[id, finalScore]`. */
  knowledge: Array<{ query: string; ranked: Array<[string, number]> }>;
}

/** Runs the fixture through the retrieval paths whose rankings are pinned. */
export async function recordRankings(
  fixture: RankingFixture = buildRankingFixture(),
): Promise<RankingRecord> {
  const counter = createCharCounter();
  const index = createConversationIndex({ indexContext: 1 });
  index.append(fixture.turns);
  const retriever = createRetriever({ sources: [index], recallLimit: 20 });
  const record: RankingRecord = { retrieve: [], withHistory: [], filtered: [], knowledge: [] };
  for (const query of fixture.questions) {
    const result = await retriever.retrieve({ query, maxTokens: 0, counter });
    record.retrieve.push({
      query,
      ranked: result.ranked.map((candidate) => [
        candidate.id,
        candidate.finalScore,
        Object.values(candidate.signals),
      ]),
    });
  }
  for (const [position, query] of fixture.questions.entries()) {
    const at = 5 + ((position * 37) % (fixture.turns.length - 5));
    const history = fixture.turns.slice(at - 5, at).map((turn) => turn.text);
    const result = await retriever.retrieve({ query, history, maxTokens: 800, counter });
    record.withHistory.push({
      query,
      rewritten: result.query.query,
      ranked: result.ranked.map((candidate) => candidate.id),
      blocks: result.blocks.map((block) => [block.id, block.tokens, block.metadata.trimmed === true]),
    });
  }
  const wide = createConversationIndex({ name: 'session', indexContext: 3 });
  wide.append(fixture.turns);
  const odd = (id: string) => Number(id.slice(id.indexOf(':') + 1)) % 2 === 1;
  for (const query of fixture.questions) {
    const hits = wide.lexical.search(query, { limit: 60, filter: odd });
    record.filtered.push({ query, hits: hits.map((hit) => [hit.id, hit.score]) });
  }
  const kb = createKnowledgeBase({ name: 'notes' });
  const paragraphs: Array<{ id: string; text: string }> = [];
  for (let start = 0; start < fixture.turns.length; start += 6) {
    const group = fixture.turns.slice(start, start + 6);
    paragraphs.push({ id: `p${start / 6}`, text: group.map((turn) => turn.text).join('\n') });
  }
  await kb.add(paragraphs);
  const kbRetriever = createRetriever({ sources: [kb] });
  for (const query of fixture.questions) {
    const result = await kbRetriever.retrieve({ query, maxTokens: 0, counter });
    record.knowledge.push({
      query,
      ranked: result.ranked.map((candidate) => [candidate.id, candidate.finalScore]),
    });
  }
  return record;
}
