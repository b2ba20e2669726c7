// ctxloom on a Node.js older than `engines.node` (Debian's Node 20 at /usr/bin/node on this
// machine and in CI): every subpath imports, and opening a SQLite store is a typed
// `unsupported` error naming the release it needs — never Node's raw ERR_UNKNOWN_BUILTIN_MODULE
// (issue 29). Node 20 cannot strip types, so the package is emitted to JavaScript first, file by
// file as `tsc` would (the repository's options, `isolatedModules`), into a scratch package
// laid out like the published one.
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MIN_NODE } from '../../src/core/node-version.ts';
import { describeOnOldNode, IS_OLD, OLD_NODE, OLD_VERSION } from './old-node.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
const SUBPATHS = Object.keys(manifest.exports);

/** Every shipped `.ts` file under `src/`, as `package.json` `files` selects them. */
function shippedSources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return shippedSources(path);
    return /\.ts$/u.test(entry.name) && !/\.test\.ts$|\.test-d\.ts$|\.test-support\.ts$/u.test(entry.name)
      ? [path]
      : [];
  });
}

/** A scratch copy of the package with `dist/` emitted from `src/`, the repository's node_modules linked. */
function emitPackage(): string {
  const root = mkdtempSync(join(tmpdir(), 'ctxloom-old-node-'));
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2024,
    verbatimModuleSyntax: true,
    rewriteRelativeImportExtensions: true,
  };
  for (const file of shippedSources(join(REPO, 'src'))) {
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: options,
      fileName: file,
    });
    const out = join(root, 'dist', relative(join(REPO, 'src'), file)).replace(/\.ts$/u, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
  }
  writeFileSync(join(root, 'package.json'), JSON.stringify(manifest));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  return root;
}

/** Runs an ES module `script` on the old Node inside the scratch package; its parsed stdout. */
function runOld(root: string, script: string): unknown {
  const result = spawnSync(OLD_NODE, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout);
}

/** How an error reads across the process boundary. */
const DESCRIBE_ERROR = `(error) => ({ name: error?.name, code: error?.code, path: error?.path, message: String(error?.message).split('\\n')[0] })`;

describeOnOldNode(
  `ctxloom on Node.js ${OLD_VERSION ?? '(none)'} at ${OLD_NODE}, older than engines.node >= ${MIN_NODE}`,
  () => {
    let root = '';
    beforeAll(() => {
      expect(IS_OLD, `${OLD_NODE} is a Node.js older than ${MIN_NODE}`).toBe(true);
      root = emitPackage();
    });
    afterAll(() => {
      if (root !== '') rmSync(root, { recursive: true, force: true });
    });

    it('imports every subpath of package.json exports', () => {
      const results = runOld(
        root,
        `const describeError = ${DESCRIBE_ERROR};
       const results = {};
       for (const subpath of ${JSON.stringify(SUBPATHS)}) {
         const specifier = subpath === '.' ? 'ctxloom' : 'ctxloom/' + subpath.slice(2);
         try { results[subpath] = Object.keys(await import(specifier)).length > 0 ? 'ok' : 'no exports'; }
         catch (error) { results[subpath] = describeError(error); }
       }
       process.stdout.write(JSON.stringify(results));`,
      );
      expect(results).toEqual(Object.fromEntries(SUBPATHS.map((subpath) => [subpath, 'ok'])));
    });

    it('answers opening each SQLite store with an unsupported CtxloomError naming the Node.js it needs', () => {
      const results = runOld(
        root,
        `const describeError = ${DESCRIBE_ERROR};
       const { openMemoryStore, openSharedPool } = await import('ctxloom/sources');
       const { SqliteSaver } = await import('ctxloom/runtime');
       const { openSessionStore } = await import('ctxloom/session');
       const { openWorkspace } = await import('ctxloom/workspace');
       const attempts = {
         memoryStore: () => openMemoryStore({ path: ':memory:' }),
         sharedPool: () => openSharedPool(),
         sqliteSaver: () => new SqliteSaver({ path: ':memory:' }),
         sessionStore: () => openSessionStore('sqlite::memory:', { workspace: openWorkspace({ root: '.' }) }),
       };
       const results = {};
       for (const [name, attempt] of Object.entries(attempts)) {
         try { await attempt(); results[name] = 'opened'; }
         catch (error) { results[name] = describeError(error); }
       }
       process.stdout.write(JSON.stringify(results));`,
      ) as Record<string, { name: string; code: string; path: string; message: string }>;
      expect(Object.keys(results)).toEqual(['memoryStore', 'sharedPool', 'sqliteSaver', 'sessionStore']);
      for (const [store, error] of Object.entries(results)) {
        expect(error, store).toMatchObject({
          name: 'CtxloomError',
          code: 'unsupported',
          path: 'node:sqlite',
        });
        expect(error.message, store).toContain(
          `needs Node.js >= ${MIN_NODE} (its built-in node:sqlite); this is Node.js ${OLD_VERSION?.slice(1)}`,
        );
      }
    });
  },
);
