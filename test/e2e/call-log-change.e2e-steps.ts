import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * A model call logged (a record under `calls/`, as each step of a tool loop writes) changes the
 * call log's count in the file tree and nothing that is compiled: the preview is not fetched
 * again. A change to any other file of the session still is. `page` shows the session whose
 * folder is `folder`.
 */
export async function callLogChange(page: Page, folder: string): Promise<void> {
  const previews: string[] = [];
  const countPreviews = (request: { url(): string }) => {
    if (new URL(request.url()).pathname.endsWith('/context-preview')) previews.push(request.url());
  };
  page.on('request', countPreviews);
  try {
    const logged = async () =>
      Number(/call log, (\d+) files/u.exec((await page.locator('.file-tree').textContent()) ?? '')?.[1] ?? 0);
    const before = await logged();
    await mkdir(join(folder, 'calls'), { recursive: true });
    await writeFile(join(folder, 'calls', '999999.json'), '{"call":{"id":"outside"}}');
    await expect.poll(logged, { timeout: 5_000 }).toBe(before + 1);
    expect(previews).toEqual([]);
    await writeFile(join(folder, 'outside.md'), '# 外部写入，再一次\n');
    await expect.poll(() => previews.length, { timeout: 5_000 }).toBeGreaterThan(0);
  } finally {
    page.off('request', countPreviews);
    await rm(join(folder, 'calls', '999999.json'), { force: true });
  }
}
