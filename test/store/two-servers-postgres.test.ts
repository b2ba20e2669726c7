import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Message } from '../../src/core/index.ts';
import { openSessionStore } from '../../src/session/open-session-store.ts';
import { openWorkspace } from '../../src/workspace/index.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

/**
 * Issue 12: where users outgrow one machine, two `ctxloom serve --store postgres://…`
 * processes on one database serve the same sessions, and concurrent chats split across them
 * lose and duplicate nothing. Everything goes through the real HTTP API with each process's
 * printed token; the store is then read directly as a third opinion.
 */
const EXAMPLE = fileURLToPath(new URL('../../examples/notebook', import.meta.url));
const PG_URL = inject('pgUrl');
const SCHEMA = `ctxloom_servers_${process.pid}_${Date.now().toString(36)}`;
const SESSION = 'shared-chat';
const CHATS = 20;

const storeUrl = () => {
  const url = new URL(PG_URL);
  url.searchParams.set('schema', SCHEMA);
  return url.toString();
};

let root: string;
let servers: ServeProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-two-servers-'));
  await cp(EXAMPLE, root, { recursive: true });
  // Started together, as a deployment would: the first one to set up creates the schema.
  servers = await Promise.all([0, 1].map(() => startServeProcess({ workspace: root, store: storeUrl() })));
}, 120_000);

afterAll(async () => {
  const codes = await Promise.all(servers.map((server) => server.stop()));
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
  await admin.end();
  if (root) await rm(root, { recursive: true, force: true });
  expect(codes).toEqual(servers.map(() => 0));
});

/** One chat request read to its end: the answer's id from `start`, and whether it finished. */
async function chat(server: ServeProcess, index: number) {
  const response = await server.fetch(`/api/sessions/${SESSION}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      messages: [
        {
          id: `q${index}`,
          role: 'user',
          parts: [{ type: 'text', text: `Question ${index}: what does a Raft leader do in term ${index}?` }],
        },
      ],
    }),
  });
  const wire = await response.text();
  const chunks = wire
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; messageId?: string });
  return {
    status: response.status,
    // The last `start` names the answer: a chat queued behind another compile gets a `start` at
    // once with a provisional id, which the turn's own `start` replaces (as `useChat` reads it).
    answerId: chunks.findLast((chunk) => chunk.type === 'start' && chunk.messageId)?.messageId,
    finished: chunks.at(-1)?.type === 'finish',
    errors: chunks.filter((chunk) => chunk.type === 'error'),
  };
}

describe('two ctxloom serve processes on one PostgreSQL session store', () => {
  it(`serve the same session, and ${CHATS} concurrent chats split across them lose and duplicate nothing`, async () => {
    const [first, second] = servers as [ServeProcess, ServeProcess];
    const created = await first.fetch('/api/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ concept: 'Shared chat', id: SESSION }),
    });
    expect(created.status).toBe(201);

    const results = await Promise.all(
      Array.from({ length: CHATS }, (_, index) => chat(index % 2 === 0 ? first : second, index)),
    );
    for (const result of results) {
      expect(result).toMatchObject({ status: 200, finished: true, errors: [] });
      expect(result.answerId).toEqual(expect.any(String));
    }
    const questionIds = results.map((_, index) => `q${index}`);
    const answerIds = results.map((result) => result.answerId as string);
    expect(new Set(answerIds).size).toBe(CHATS);

    // The store: exactly 20 questions and 20 answers, each once, each answer after its question
    // and compiled for it (its call record's turn is the question).
    const store = await openSessionStore(storeUrl(), { workspace: openWorkspace({ root }) });
    try {
      const { messages } = await store.load(SESSION);
      const ids = messages.map((message) => message.id);
      expect(new Set(ids).size).toBe(ids.length);
      const questions = messages.filter((message) => message.role === 'user');
      const answers = messages.filter((message) => message.role === 'assistant');
      expect(questions.map((message) => message.id).sort()).toEqual([...questionIds].sort());
      expect(answers.map((message) => message.id).sort()).toEqual([...answerIds].sort());
      expect(messages).toHaveLength(2 * CHATS);
      const calls = new Map((await store.listCalls(SESSION)).map((call) => [call.id, call.turnId]));
      results.forEach((result, index) => {
        const answer = messages.find((message) => message.id === result.answerId) as Message;
        expect(ids.indexOf(answer.id)).toBeGreaterThan(ids.indexOf(`q${index}`));
        const context = answer.metadata?.context as { callId?: string } | undefined;
        expect(calls.get(context?.callId ?? '')).toBe(`q${index}`);
      });
    } finally {
      await store.close();
    }

    // Both servers list the same messages and compile the same next call.
    const [listed, previews] = await Promise.all([
      Promise.all(servers.map(async (server) => (await server.fetch(`/api/sessions/${SESSION}`)).json())),
      Promise.all(
        servers.map(async (server) =>
          (await server.fetch(`/api/sessions/${SESSION}/context-preview`)).json(),
        ),
      ),
    ]);
    const shown = listed as { messages: { id: string; role: string }[] }[];
    expect(shown[1]).toEqual(shown[0]);
    expect(shown[0]?.messages.map((message) => message.id).sort()).toEqual(
      [...questionIds, ...answerIds].sort(),
    );
    const totals = (previews as { report: { totalTokens: number } }[]).map(
      (preview) => preview.report.totalTokens,
    );
    expect(totals[1]).toBe(totals[0]);
    // Nothing went to the session folder's files: the store is the record.
    expect(JSON.parse(await readFile(join(root, SESSION, 'messages.json'), 'utf8'))).toEqual([]);
  }, 300_000);
});
