import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';
import {
  answerDialog,
  ask,
  bodyText,
  EXAMPLE,
  launchChromium,
  layerTokens,
  openNotebookPage,
  poll,
  previewTokens,
  requireWebBuild,
  screenshot,
} from './notebook-browser.ts';

/**
 * Issue 12: a notebook session served from SQLite checkpoints behaves as one served from the
 * workspace files. The same browser scenario runs against `ctxloom serve --store files` and
 * `--store sqlite:<file>` (each its own process), and what the page shows must be equal.
 */
const STORES = [
  { name: 'files', spec: (_dir: string) => 'files' },
  { name: 'sqlite', spec: (dir: string) => `sqlite:${join(dir, 'sessions.db')}` },
] as const;

/** What the page shows at the end of the scenario, free of ids and clock times. */
interface Seen {
  /** The `/compress` command's answer in the chat. */
  compressReply: string;
  /** The preview right after `/compress`. */
  afterCompress: PreviewSeen;
  /** The preview after the dismiss. */
  afterDismiss: PreviewSeen;
  /** The chat after a reload: role, body text and curation badge of every message. */
  messages: { role: string; text: string; badge: string }[];
}

interface PreviewSeen {
  total: number;
  /** Tokens per layer, as the preview's table shows them. */
  layers: Record<string, number>;
}

const QUESTIONS = [
  'What is a term in Raft, and why does every message carry one?',
  'How does a follower decide to start an election?',
  'please read session-prompt.md',
];

const seen = new Map<string, Seen>();
let browser: Browser;

beforeAll(async () => {
  await requireWebBuild();
  browser = await launchChromium(inject('chromiumPath'));
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe.each(STORES)('a notebook session kept in $name', ({ name, spec }) => {
  let dir: string;
  let serve: ServeProcess;
  let page: Page;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `ctxloom-e2e-${name}-`));
    await cp(EXAMPLE, join(dir, 'ws'), { recursive: true });
    serve = await startServeProcess({ workspace: join(dir, 'ws'), store: spec(dir) });
    page = await openNotebookPage(browser, serve.browserUrl);
  }, 120_000);

  afterAll(async () => {
    await page?.close();
    const code = await serve?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    expect(code).toBe(0);
  });

  it('chats, previews, compresses, dismisses and reloads', async () => {
    try {
      const result = await scenario(page, serve);
      seen.set(name, result);
    } catch (error) {
      await screenshot(page, `stores-${name}-failure`);
      throw error;
    }
    // The state lives where the store says: the session folder's record stays empty with SQLite.
    const folder = join(dir, 'ws', await sessionFolder(serve));
    const record = JSON.parse(await readFile(join(folder, 'messages.json'), 'utf8')) as unknown[];
    if (name === 'files') expect(record.length).toBeGreaterThan(QUESTIONS.length * 2);
    else expect(record).toEqual([]);
  }, 240_000);
});

describe('the files store and the SQLite checkpoint store', () => {
  it('show the same chat, preview, summary and curation', () => {
    expect([...seen.keys()].sort()).toEqual(['files', 'sqlite']);
    expect(seen.get('sqlite')).toEqual(seen.get('files'));
  });
});

/** The id of the session the scenario created (the only one named "Store parity"). */
async function sessionFolder(serve: ServeProcess): Promise<string> {
  const list = (await (await serve.fetch('/api/sessions')).json()) as {
    sessions: { id: string; concept: string }[];
  };
  const session = list.sessions.find((entry) => entry.concept === 'Store parity');
  if (session === undefined) throw new Error('the scenario did not create its session');
  return session.id;
}

async function scenario(page: Page, serve: ServeProcess): Promise<Seen> {
  await page.goto(`${serve.url}/?lang=en`);
  await poll(() => previewTokens(page), { timeout: 20_000 }).toBeGreaterThan(0);
  await page.getByRole('button', { name: '+ New session' }).click();
  await answerDialog(page, 'Store parity');
  await poll(() => page.locator('.session-list li.active').textContent()).toContain('Store parity');
  await poll(() => page.locator('.messages .empty').isVisible()).toBe(true);

  // Three turns: two answers from the context, one that runs read_file.
  for (const [index, question] of QUESTIONS.entries()) await ask(page, question, index + 1);
  await poll(() => page.locator('.message.assistant').last().getByTestId('tool-event').count()).toBe(1);

  // /compress typed in the chat is a command: answered without the model, and the preview
  // gets the summary layer — unless it would make the call larger.
  await ask(page, '/compress', QUESTIONS.length + 1);
  const compressReply = await bodyText(page.locator('.message.assistant').last());
  const [, before, after] = /^\/compress: context (\d+) → (\d+) tokens\./u.exec(compressReply) ?? [];
  // Never larger (decision 040): three short turns summarise to about their own size, so the
  // command may keep nothing and say so; otherwise the summary layer appears.
  expect(Number(after)).toBeLessThanOrEqual(Number(before));
  // The preview shows what the next call would send: the reply's "after".
  await poll(() => previewTokens(page)).toBe(Number(after));
  if (compressReply.includes('Nothing stored')) expect(Number(after)).toBe(Number(before));
  else expect(await layerTokens(page, 'compression__context')).toBeGreaterThan(0);
  const afterCompress = await previewSeen(page);
  await screenshot(page, `stores-${serve.url.split(':').at(-1)}-compressed`);

  // Dismiss the read_file answer (still verbatim in the history: the summary covers the
  // older messages): the history layer shrinks.
  const history = await layerTokens(page, 'history');
  const toolAnswer = page.locator('.message.assistant').nth(QUESTIONS.length - 1);
  await toolAnswer.getByRole('button', { name: 'Dismiss from memory' }).click();
  await poll(() => toolAnswer.locator('.message-head').textContent()).toContain('excluded from memory');
  await poll(() => layerTokens(page, 'history')).toBeLessThan(history);
  const afterDismiss = await previewSeen(page);

  // Reload: the history, the summary and the curation come back from the store.
  const shown = await chatSeen(page);
  await page.reload();
  await poll(() => page.locator('.message').count(), { timeout: 20_000 }).toBe(shown.length);
  await poll(() => chatSeen(page)).toEqual(shown);
  await poll(() => previewSeen(page)).toEqual(afterDismiss);
  expect(shown.filter((message) => message.badge.includes('excluded from memory'))).toHaveLength(1);

  // Another client curates (here the API, as a second tab would): the open page follows live.
  const first = page.locator('.message.assistant').first();
  const firstId = await first.getAttribute('data-message-id');
  const sessionId = await sessionFolder(serve);
  const curate = (action: 'exclude' | 'restore') =>
    serve.fetch(`/api/sessions/${encodeURIComponent(sessionId)}/curation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ targetMessageIds: [firstId], action }),
    });
  expect((await curate('exclude')).status).toBe(200);
  await poll(() => first.locator('.message-head').textContent()).toContain('excluded from memory');
  expect((await curate('restore')).status).toBe(200);
  await poll(() => first.locator('.message-head').textContent()).not.toContain('excluded from memory');
  return { compressReply, afterCompress, afterDismiss, messages: shown };
}

async function chatSeen(page: Page): Promise<Seen['messages']> {
  return page.locator('.message').evaluateAll((nodes) =>
    nodes.map((node) => ({
      role: node.getAttribute('data-role') ?? '',
      text: (node.querySelector('.message-body')?.textContent ?? '').trim(),
      badge: Array.from(node.querySelectorAll('.message-head .badge'))
        .map((badge) => badge.textContent ?? '')
        .join(' '),
    })),
  );
}

async function previewSeen(page: Page): Promise<PreviewSeen> {
  const layers = await page
    .locator('tr.layer-row[data-layer]')
    .evaluateAll((rows) =>
      rows.map((row) => [
        row.getAttribute('data-layer') ?? '',
        Number((row.querySelector('td.num')?.textContent ?? '').replace(/,/gu, '')),
      ]),
    );
  return {
    total: await previewTokens(page),
    layers: Object.fromEntries(layers) as Record<string, number>,
  };
}
