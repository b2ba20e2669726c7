import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openEtlSession, playScript } from '../../examples/etl/run.ts';
import { ETL_SCRIPT } from '../../examples/etl/scripted-conversation.ts';
import type { CallRecord } from '../../src/core/index.ts';
import { type NotebookServer, startNotebookServer } from '../../src/server/index.ts';
import {
  ask,
  bodyText,
  launchChromium,
  layerTokens,
  openNotebookPage,
  poll,
  previewTokens,
  requireWebBuild,
  screenshot,
} from './notebook-browser.ts';

/**
 * Issue 12: `examples/etl` and the notebook run on the same engine. The ETL session (four
 * agents on the dynamic process, SQLite checkpoints) is served by the notebook as
 * `npm run example:etl -- --serve` serves it; in a real browser, `/compress` typed in the chat
 * is the engine's command, the preview is the current agent's next call, and a chat message
 * runs through the process (routed, answered, logged).
 */
let browser: Browser;
let dir: string;
let server: NotebookServer;
let page: Page;
let close: () => Promise<void>;

beforeAll(async () => {
  const webRoot = await requireWebBuild();
  browser = await launchChromium(inject('chromiumPath'));
  dir = await mkdtemp(join(tmpdir(), 'ctxloom-e2e-etl-'));
  const opened = await openEtlSession({ path: join(dir, 'etl.db') });
  // Everything before the script's /compress: routing, a question, clarifications, artifacts.
  await playScript(opened.session, ETL_SCRIPT.slice(0, 10));
  server = await startNotebookServer({
    workspace: opened.session.workspace,
    store: opened.session.store,
    process: opened.session.process,
    model: { model: opened.model, spec: 'scripted (examples/etl)', offline: false },
    proposer: opened.proposer,
    port: 0,
    webRoot,
  });
  close = () => opened.saver.close();
  page = await openNotebookPage(browser, server.browserUrl);
}, 180_000);

afterAll(async () => {
  await page?.close();
  await browser?.close();
  await server?.close();
  await close?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the notebook on the ETL session', () => {
  it('previews the current agent’s call, runs /compress as the engine’s command and a message through the process', async () => {
    try {
      await page.goto(`${server.url}/?lang=en`);
      await poll(() => previewTokens(page), { timeout: 20_000 }).toBeGreaterThan(0);
      await poll(() => page.locator('.message').count()).toBeGreaterThan(10);
      expect(await layerTokens(page, 'todo__context')).toBeGreaterThan(0);
      const answers = await page.locator('.message.assistant').count();

      await ask(page, '/compress', answers + 1);
      const reply = await bodyText(page.locator('.message.assistant').last());
      // A model summariser's call is logged under the command, so its reply may carry a call chip first.
      const [, before, after] = /\/compress: context (\d+) → (\d+) tokens\./u.exec(reply) ?? [];
      expect(Number(after)).toBeLessThan(Number(before));
      await poll(() => previewTokens(page)).toBe(Number(after));
      expect(await layerTokens(page, 'compression__context')).toBeGreaterThan(0);
      await screenshot(page, 'etl-compressed');

      // The script's next message goes to the tester through the router.
      await ask(page, ETL_SCRIPT[11]!.user, answers + 2);
      const answer = await bodyText(page.locator('.message.assistant').last());
      expect(answer).toContain('orders_daily_checks');
      await screenshot(page, 'etl-answered');
      const calls = (await (
        await fetch(`${server.url}/api/sessions/window-1/calls`, {
          headers: { authorization: `Bearer ${server.token}` },
        })
      ).json()) as { calls: CallRecord[] };
      const tester = calls.calls.at(-1);
      expect(tester?.agentId).toBe('tester');

      // After a reload the answer carries its turn's calls: its chip opens the tester's call.
      await page.reload();
      const chip = page.locator('.message.assistant').last().locator('button[data-call]');
      await poll(() => chip.getAttribute('data-call'), { timeout: 20_000 }).toBe(tester?.id);
      await chip.click();
      const report = page.getByTestId('call-report');
      await poll(() => report.getAttribute('data-call-id')).toBe(tester?.id);
      await poll(() => report.getByTestId('call-total').getAttribute('data-tokens')).toBe(
        String(tester?.report.totalTokens),
      );
      await screenshot(page, 'etl-call');
    } catch (error) {
      await screenshot(page, 'etl-failure');
      throw error;
    }
  }, 180_000);
});
