import { expect } from 'vitest';
import { openWorkspace, readMessages } from '../../src/workspace/index.ts';
import type { E2eEnvironment } from './call-reports.e2e-steps.ts';
import { poll } from './notebook-browser.ts';

/**
 * The notebook by keyboard, in the session `session`: one tab stop per message list, a message
 * with bad references kept and named (and sent without them), block completions in document order.
 */
export async function keyboardSteps({
  page,
  server,
  root,
  fetch,
  shot,
  session,
  openSession,
}: E2eEnvironment & { session: string; openSession: (lang: 'en' | 'zh') => Promise<void> }): Promise<void> {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openSession('en');
  // One tab stop for the whole message list; arrow keys move between messages.
  const curate = page.locator('.messages button[data-curate]');
  await poll(() => curate.count(), { timeout: 20_000 }).toBeGreaterThan(20);
  expect(await page.locator('.messages button[data-curate][tabindex="0"]').count()).toBe(1);
  await page.locator('.messages button[data-curate][tabindex="0"]').focus();
  const label = () =>
    page.evaluate(() => document.activeElement?.closest<HTMLElement>('[data-message-id]')?.dataset.messageId);
  const last = await label();
  await page.keyboard.press('ArrowUp');
  const previous = await label();
  expect(previous).toBeDefined();
  expect(previous).not.toBe(last);
  await page.keyboard.press('ArrowDown');
  expect(await label()).toBe(last);
  // Tab from there leaves the list without meeting another curation button (only the content's
  // own controls — tool details, links — are stops) and reaches the input.
  const inList = () =>
    page.evaluate(() => ({
      inside: document.activeElement?.closest('.messages') !== null,
      curate: document.activeElement?.hasAttribute('data-curate') === true,
    }));
  let stops = 0;
  for (; stops < 100; stops++) {
    await page.keyboard.press('Tab');
    const where = await inList();
    if (!where.inside) break;
    expect(where.curate).toBe(false);
  }
  expect(stops).toBeLessThan(100);
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('chat-input');

  // A message with two bad references is refused but not lost: the text stays in the input,
  // both references are marked in it and named under it; "send without them" removes exactly
  // those two and sends the rest, which is stored.
  const input = page.getByTestId('chat-input');
  const storedUserTexts = async () =>
    (await readMessages(openWorkspace({ root }).session(session)))
      .filter((message) => message.role === 'user')
      .map((message) => String(message.content));
  const storedBefore = await storedUserTexts();
  // The second's last line is past the safe integers: named as written, not as 2^53 − 1.
  const typed = 'compare [nope.md:1:3] with [guidance.md:999:123456789012345678901] please';
  await input.click();
  await page.keyboard.type(typed);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Enter');
  const refusal = page.getByTestId('bad-references');
  await poll(() => refusal.locator('li').count(), { timeout: 20_000 }).toBe(2);
  const named = await refusal.locator('li').allTextContents();
  expect(named[0]).toContain('[nope.md:1:3]');
  expect(named[0]).toContain('nope.md does not exist in this session');
  expect(named[1]).toContain('[guidance.md:999:123456789012345678901]');
  expect(named[1]).toMatch(/lines 999–123456789012345678901 are outside guidance\.md \(it has \d+ lines\)/u);
  expect(await input.textContent()).toBe(typed);
  expect(await page.locator('.chat-input .cm-bad-reference').allTextContents()).toEqual([
    '[nope.md:1:3]',
    '[guidance.md:999:123456789012345678901]',
  ]);
  expect(await page.locator('.message.user').filter({ hasText: 'nope.md' }).count()).toBe(0);
  expect(await page.locator('.chat-error').count()).toBe(0);
  expect(await storedUserTexts()).toEqual(storedBefore);
  await shot('keyboard-bad-references');
  await refusal.getByRole('button', { name: 'Send without them' }).click();
  await poll(async () => (await storedUserTexts()).at(-1), { timeout: 20_000 }).toBe('compare with please');
  expect((await storedUserTexts()).length).toBe(storedBefore.length + 1);
  expect(await refusal.count()).toBe(0);
  expect(await input.locator('.cm-placeholder').count()).toBe(1); // empty
  await poll(() => page.locator('.message.user').last().textContent(), { timeout: 20_000 }).toContain(
    'compare with please',
  );
  // The answer is stored too; the input has the focus back.
  await poll(async () => (await readMessages(openWorkspace({ root }).session(session))).at(-1)?.role, {
    timeout: 20_000,
  }).toBe('assistant');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('chat-input');

  // Block completions come in document order.
  await input.click();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Backspace');
  const blocks = (await (
    await fetch(`${server.url}/api/profile/blocks?session=${session}&file=guidance.md`)
  ).json()) as { blocks: { id: string; children: unknown[] }[] };
  const flat = (nodes: { id: string; children: unknown[] }[]): string[] =>
    nodes.flatMap((node) => [node.id, ...flat(node.children as { id: string; children: unknown[] }[])]);
  const expected = flat(blocks.blocks);
  await page.keyboard.type('[guidance.md#');
  const options = page.locator('.cm-tooltip-autocomplete li .cm-completionLabel');
  // The file list of "[" may still show until the block list of "[guidance.md#" arrives.
  await poll(async () => (await options.allTextContents())[0], { timeout: 15_000 }).toBe(expected[0]);
  const shown = await options.allTextContents();
  expect(shown.length).toBeGreaterThan(5);
  expect(shown).toEqual(expected.slice(0, shown.length));
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Backspace');
}
