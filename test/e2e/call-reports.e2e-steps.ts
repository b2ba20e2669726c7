import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { CallListResponse } from '../../src/server/api-types.ts';
import type { NotebookServer } from '../../src/server/index.ts';
import { createFileSessionStore } from '../../src/session/index.ts';
import { openWorkspace } from '../../src/workspace/index.ts';

/** What the notebook E2E file shares with its steps. */
export interface E2eEnvironment {
  page: Page;
  server: NotebookServer;
  /** The workspace folder the server serves. */
  root: string;
  /** `fetch` with the run's bearer token. */
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  shot: (name: string) => Promise<unknown>;
}

const SESSION = 'call-reports';

/**
 * Issue 13 point 4: an earlier answer's chip opens that call's report and its diff with the
 * call before it — by mouse at 1440 px, by keyboard, and as the Context tab at 390 px.
 */
export async function callReports({ page, server, root, fetch, shot }: E2eEnvironment): Promise<void> {
  const poll = <T>(read: () => T | Promise<T>, timeout = 10_000) => expect.poll(read, { timeout });
  const created = await fetch(`${server.url}/api/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ concept: 'Call reports', id: SESSION }),
  });
  expect(created.status).toBe(201);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${server.url}/?lang=en&session=${SESSION}`);
  await poll(() => page.getByTestId('preview-total').count(), 20_000).toBe(1);

  // Two questions; each stored answer's chip becomes a button naming its logged call.
  const input = page.getByTestId('chat-input');
  const chips = page.locator('.message.assistant button[data-call]');
  for (const [count, question] of [
    [1, 'What is a term in Raft?'],
    [2, 'How does log replication work?'],
  ] as const) {
    await input.click();
    await page.keyboard.type(question);
    await page.keyboard.press('Enter');
    await poll(() => chips.count(), 30_000).toBe(count);
  }
  const { calls } = (await (
    await fetch(`${server.url}/api/sessions/${SESSION}/calls`)
  ).json()) as CallListResponse;
  expect(calls).toHaveLength(2);
  const [first, second] = calls as [CallListResponse['calls'][0], CallListResponse['calls'][0]];
  expect(await chips.nth(0).getAttribute('data-call')).toBe(first.id);
  expect(await chips.nth(1).getAttribute('data-call')).toBe(second.id);

  // The FIRST answer's chip: its report replaces the preview, with the numbers that call was sent.
  await chips.nth(0).click();
  const report = page.getByTestId('call-report');
  await poll(() => report.getAttribute('data-call-id')).toBe(first.id);
  await poll(() => report.getByTestId('call-total').getAttribute('data-tokens')).toBe(
    String(first.report.totalTokens),
  );
  expect(await chips.nth(0).getAttribute('aria-pressed')).toBe('true');
  // The preview stays mounted, hidden, so closing the report shows it without a new compile.
  expect(await page.getByTestId('preview-total').isVisible()).toBe(false);
  // A logged call keeps block previews: the query layer shows the question it was sent.
  await report.locator('tr[data-layer="query"] .layer-toggle').click();
  await poll(() => report.locator('.layer-detail .block-preview').first().textContent()).toContain(
    'What is a term in Raft?',
  );
  await shot('calls-1440-report');
  // Its diff: it is the session's first call, and the view says so.
  await report.getByRole('tab', { name: 'Diff with previous call' }).click();
  await poll(() => report.getByTestId('diff-first').isVisible()).toBe(true);
  await shot('calls-1440-first-diff');

  // By keyboard: from the first chip, ArrowDown reaches the second; Enter opens it; the view
  // tabs move with the arrow keys.
  await chips.nth(0).focus();
  await page.keyboard.press('ArrowDown');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-call'))).toBe(second.id);
  await page.keyboard.press('Enter');
  await poll(() => report.getAttribute('data-call-id')).toBe(second.id);
  await report.getByRole('tab', { name: 'Report' }).focus();
  await page.keyboard.press('ArrowRight');
  const diff = report.getByTestId('call-diff');
  await poll(() => diff.isVisible()).toBe(true);
  // The second call against the first: the first question and its answer entered the history,
  // the new question replaced the old one in the query layer; totals are the two calls' own.
  const added = diff.locator('[data-diff="added"] li');
  await poll(() => added.filter({ hasText: 'What is a term in Raft?' }).count()).toBeGreaterThan(0);
  expect(
    await added.filter({ hasText: 'What is a term in Raft?' }).first().getAttribute('data-block'),
  ).toMatch(/^history:/u);
  expect(await added.filter({ hasText: 'How does log replication work?' }).count()).toBe(1);
  const removed = diff.locator('[data-diff="removed"] li').filter({ hasText: 'What is a term in Raft?' });
  expect(await removed.textContent()).toContain('no longer collected');
  expect(await diff.getByTestId('diff-total').getAttribute('data-delta')).toBe(
    String(second.report.totalTokens - first.report.totalTokens),
  );
  expect(await diff.locator('tr[data-layer="history"] .delta').textContent()).toMatch(/^\+/u);
  expect(await diff.getByTestId('diff-cache').textContent()).toMatch(/cached [\d,]+uncached [\d,]+/u);
  await shot('calls-1440-diff');

  // Escape returns to the preview and to the chip that opened the report.
  await page.keyboard.press('Escape');
  await poll(() => page.getByTestId('preview-total').isVisible()).toBe(true);
  expect(await report.count()).toBe(0);
  await poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-call'))).toBe(second.id);

  // A turn of several model calls (the tool loop logs one per step, same turnId): the chip opens
  // them all, as step tabs; a later step's diff is against the step before it.
  const step: typeof second = { ...second, id: `${second.id}-step-1`, step: 1 };
  await createFileSessionStore({ workspace: openWorkspace({ root }) }).appendCall(SESSION, step);
  await chips.nth(1).click();
  await poll(() => report.getByRole('tab', { name: 'Step 2' }).count()).toBe(1);
  expect(
    await report.getByRole('tablist', { name: 'Steps of this turn' }).getByRole('tab').allTextContents(),
  ).toEqual(['Step 1', 'Step 2']);
  await report.getByRole('tab', { name: 'Step 2' }).click();
  await poll(() => report.getAttribute('data-call-id')).toBe(step.id);
  await report.getByRole('tab', { name: 'Diff with previous call' }).click();
  await poll(() => diff.getByTestId('diff-total').getAttribute('data-delta')).toBe('0');
  expect(await diff.locator('[data-diff="added"] li').count()).toBe(0);
  await shot('calls-1440-steps');
  await report.getByRole('button', { name: 'Back to the preview' }).click();
  await poll(() => page.getByTestId('preview-total').isVisible()).toBe(true);

  // 390 px, Chinese, dark: the chip switches to the Context tab; nothing is wider than the screen.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/?lang=zh&session=${SESSION}`);
    await poll(() => chips.count(), 20_000).toBe(2);
    await chips.nth(1).click();
    await poll(() => report.isVisible()).toBe(true);
    expect(await page.locator('.panel-tabs [role="tab"][aria-selected="true"]').textContent()).toBe('上下文');
    await report.getByRole('tab', { name: '与上一次调用对比' }).click();
    await poll(() => diff.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(`calls-390-zh-diff-${scheme}`);
    await report.getByRole('tab', { name: '报告' }).click();
    await report.locator('tr[data-layer="history"] .layer-toggle').click();
    await shot(`calls-390-zh-report-${scheme}`);
    await report.getByRole('button', { name: '返回预览' }).click();
    await poll(() => page.locator('.panel-tabs [role="tab"][aria-selected="true"]').textContent()).toBe(
      '会话',
    );
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
