// The call report: open in the URL, so a reload, or back and forward, opens the same call
// again; its diff's per-layer table adds up to the totals it sits under.
import { describe, expect, it } from 'vitest';
import type { CallListResponse } from '../../src/server/api-types.ts';
import { ask, poll, screenshot, servedNotebookPage } from './notebook-browser.ts';

const notebook = servedNotebookPage('ctxloom-e2e-call-url-');

describe('an open call report', () => {
  it('stays open across a reload and back/forward, and closing it leaves the URL', async () => {
    try {
      await poll(() => notebook.page.locator('.message.assistant').count(), {
        timeout: 20_000,
      }).toBeGreaterThan(0);
      await ask(
        notebook.page,
        'What is a term in Raft?',
        (await notebook.page.locator('.message.assistant').count()) + 1,
      );
      const chip = notebook.page.locator('.message.assistant button[data-call]').last();
      const callId = await chip.getAttribute('data-call');
      expect(callId).toBeTruthy();
      await chip.click();
      const report = notebook.page.getByTestId('call-report');
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);

      await notebook.page.reload();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);
      expect(new URL(notebook.page.url()).searchParams.get('session')).toBe('raft-consensus');

      await notebook.page.goto('about:blank');
      await notebook.page.goBack();
      await poll(() => report.getAttribute('data-call-id'), { timeout: 20_000 }).toBe(callId);

      // Closed, it is no longer in the URL: a reload shows the preview.
      await report.getByRole('button', { name: 'Back to the preview' }).click();
      await poll(() => new URL(notebook.page.url()).searchParams.has('call')).toBe(false);
      await notebook.page.reload();
      await poll(() => notebook.page.getByTestId('preview-total').isVisible(), { timeout: 20_000 }).toBe(
        true,
      );
      expect(await report.count()).toBe(0);

      // At 390 px a reload with a call open shows the Context tab with the report.
      await chip.click();
      await poll(() => report.getAttribute('data-call-id')).toBe(callId);
      await notebook.page.setViewportSize({ width: 390, height: 844 });
      await notebook.page.reload();
      await poll(() => report.isVisible(), { timeout: 20_000 }).toBe(true);
      expect(
        await notebook.page.locator('.panel-tabs [role="tab"][aria-selected="true"]').textContent(),
      ).toBe('Context');
      await screenshot(notebook.page, 'call-url-390-reloaded');
    } catch (error) {
      await screenshot(notebook.page, 'failure-call-url');
      throw error;
    }
  }, 120_000);

  it('diffs against the previous call in a table whose rows add up to both totals', async () => {
    try {
      await notebook.page.setViewportSize({ width: 1440, height: 900 });
      await notebook.page.goto(`${notebook.server.url}/?session=raft-consensus`);
      await poll(() => notebook.page.locator('.message.assistant button[data-call]').count(), {
        timeout: 20_000,
      }).toBeGreaterThan(0);
      await ask(
        notebook.page,
        'How does log replication work?',
        (await notebook.page.locator('.message.assistant').count()) + 1,
      );
      await notebook.page.locator('.message.assistant button[data-call]').last().click();
      const report = notebook.page.getByTestId('call-report');
      await report.getByRole('tab', { name: 'Diff with previous call' }).click();
      const diff = report.getByTestId('call-diff');
      await poll(() => diff.isVisible(), { timeout: 20_000 }).toBe(true);
      const response = await fetch(`${notebook.server.url}/api/sessions/raft-consensus/calls`, {
        headers: { Authorization: `Bearer ${notebook.server.token}` },
      });
      const { calls } = (await response.json()) as CallListResponse;
      const [previous, current] = calls.slice(-2).map((call) => call.report);
      const number = (text: string | null) => Number((text ?? '').replace(/,/gu, ''));
      const rows = await diff
        .locator('table.diff-layers tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)),
        );
      const sum = (column: number) => rows.reduce((total, row) => total + number(row[column] ?? ''), 0);
      expect(sum(0)).toBe(previous?.totalTokens);
      expect(sum(1)).toBe(current?.totalTokens);
      // The tools and the request overhead are a row of their own, named as such.
      const other = diff.locator('tr[data-row="other"]');
      expect(await other.locator('th').textContent()).toBe('tools + request overhead');
      expect(number(await other.locator('td').nth(1).textContent())).toBe(
        (current?.tools?.tokens ?? 0) + (current?.overheadTokens ?? 0),
      );
      const total = diff.locator('tr[data-row="total"] td');
      expect(number(await total.nth(0).textContent())).toBe(previous?.totalTokens);
      expect(number(await total.nth(1).textContent())).toBe(current?.totalTokens);
      await screenshot(notebook.page, 'call-diff-rows-add-up');
    } catch (error) {
      await screenshot(notebook.page, 'failure-call-diff-rows');
      throw error;
    }
  }, 120_000);
});
