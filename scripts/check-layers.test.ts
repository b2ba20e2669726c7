import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { checkLayers } from './check-layers.mjs';

const TABLE = `# x

## Layers of the code

| tier | areas | what |
|---|---|---|
| 0 | \`core\` | pure |
| 1 | \`sources\`, \`stream\` | mid |
| 2 | \`session\` | engine |
| 3 | \`testing\` | top |

## Glossary
`;

let repo = '';
function write(files: Record<string, string>): string {
  repo = mkdtempSync(join(tmpdir(), 'ctxloom-layers-'));
  for (const [path, text] of Object.entries({ 'docs/architecture.md': TABLE, ...files })) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  return repo;
}
afterEach(() => rmSync(repo, { recursive: true, force: true }));

const BASE = {
  'src/core/index.ts': 'export const a = 1;\n',
  'src/stream/index.ts': "import type { a } from '../core/index.ts';\nexport const s = 1;\n",
  'src/sources/index.ts': "import { a } from '../core/index.ts';\nexport const b = a;\n",
  'src/session/index.ts': "export { b } from '../sources/index.ts';\n",
  'src/testing/index.ts': "import { b } from '../session/index.ts';\nexport const t = b;\n",
};

describe('checkLayers', () => {
  it('passes imports that point to lower tiers', () => {
    expect(checkLayers({ repo: write(BASE) }).problems).toEqual([]);
  });

  it('fails an upward import and names the file, the areas and their tiers', () => {
    const { problems } = checkLayers({
      repo: write({
        ...BASE,
        'src/sources/test-request.ts': "import { t } from '../testing/index.ts';\nexport const r = t;\n",
      }),
    });
    expect(problems).toContain(
      'src/sources/test-request.ts imports ../testing/index.ts: sources (tier 1) may not import testing (tier 3)',
    );
    expect(problems).toContain('area cycle: session → sources → testing → session');
  });

  it('counts dynamic imports and type-only imports, and same-tier imports are upward', () => {
    const { problems } = checkLayers({
      repo: write({
        ...BASE,
        'src/stream/late.ts': "export const load = () => import('../sources/index.ts');\n",
        'src/sources/types.ts': "import type { s } from '../stream/index.ts';\nexport type S = typeof s;\n",
      }),
    });
    expect(problems).toEqual([
      expect.stringContaining('src/sources/types.ts imports ../stream/index.ts'),
      expect.stringContaining('src/stream/late.ts imports ../sources/index.ts'),
      expect.stringMatching(/^area cycle: /u),
    ]);
  });

  it('lets test files and test helpers import any area', () => {
    const { problems } = checkLayers({
      repo: write({
        ...BASE,
        'src/core/x.test.ts': "import { t } from '../testing/index.ts';\n",
        'src/sources/request.test-support.ts': "export { t } from '../testing/index.ts';\n",
      }),
    });
    expect(problems).toEqual([]);
  });

  it('fails an area the table does not place, and a table area with no folder', () => {
    const { problems } = checkLayers({
      repo: write({ ...BASE, 'src/extra/index.ts': 'export const e = 1;\n' }),
    });
    expect(problems).toContain('src/extra has no tier in docs/architecture.md');
    rmSync(repo, { recursive: true, force: true });
    const { 'src/core/index.ts': _core, ...withoutCore } = BASE;
    const second = checkLayers({ repo: write({ ...withoutCore, 'src/other/index.ts': '' }) });
    expect(second.problems).toContain('docs/architecture.md names area "core", which has no src/core');
  });

  it('lets web import values only from src/stream', () => {
    const { problems } = checkLayers({
      repo: write({
        ...BASE,
        'web/src/a.ts':
          "import type { a } from '../../src/core/index.ts';\nimport { s } from '../../src/stream/index.ts';\n",
        'web/src/b.tsx': "import { a } from '../../src/core/index.ts';\n",
      }),
    });
    expect(problems).toEqual([
      'web/src/b.tsx imports values from src/core/index.ts: web may import values only from src/stream',
    ]);
  });
});
