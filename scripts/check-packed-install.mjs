#!/usr/bin/env node
// The tarball is the product. This packs the package, installs the tarball into a scratch
// consumer project and checks it the way a user would meet it:
//   1. the file list: no tests, test-support files or mocks; dist, the web UI, LICENSE, the
//      JSON Schema and the bundled demo are in;
//   2. `npm install <tarball>` alone (no optional peers): its installed size is within
//      CORE_BUDGET_MB (the five largest packages are printed), the core subpaths import from
//      plain Node ESM, both shipped vocabularies count, every other subpath fails only for
//      want of a declared optional peer, `ctxloom --help` and `ctxloom demo` work and
//      `ctxloom mcp` names the package to install;
//   3. the README's install table, row by row: for each row a scratch consumer with the tarball
//      and exactly the packages the row names ("install with it"), which imports the row's
//      subpaths (and runs `ctxloom serve --help` for the `serve` row); every subpath is in one
//      row; the README's MCP install line is run as written and the README's MCP client entry
//      (Claude Desktop / Cursor JSON) is started as written and answers `initialize`;
//      each ```ts snippet of the README runs as a `.ts` file in a consumer with exactly the
//      packages of the rows of the ctxloom subpaths it imports (a package it imports that
//      those rows do not name fails the check), beside a copy of examples/notebook (the
//      snippets read the example session, "run from the repository's root"); and each of the
//      README's `npx ctxloom …` commands runs in the consumer of the row that lists it (a
//      command in no row in the one without peers);
//   4. with every optional peer installed: every subpath in `exports` imports, and a consumer
//      importing all of them type-checks under `nodenext` and `bundler` (skipLibCheck off;
//      diagnostics in ctxloom's own declarations or the consumer fail the check).
// The tarball's package.json must have no install-time script (preinstall, install,
// postinstall), and `npm install` of it prints no warning but npm's install-scripts notice
// about `prepare`, which npm prints for a local tarball only (a registry install never runs
// `prepare` and does not print it; decision 046).
//
//   node scripts/check-packed-install.mjs [--skip-build] [--node <version>] [--keep]
//
// --skip-build packs the current dist (CI runs it right after `npm ci`, whose `prepare` built
// it); without it `npm pack` runs `prepare`. --node <version> also runs the CLI and the
// imports on that Node.js release (from the `node` npm package) and reports whether they
// work — how `engines.node` was measured. Exits non-zero on the first failed check.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  bytesUnder,
  importAll,
  limited,
  mcpHandshake,
  npm,
  npmRun,
  npmRunAsync,
  run,
  typeCheckConsumer,
} from './packed-helpers.mjs';
import { readCliCommands, readInstallTable, snippetInstalls } from './readme-install.mjs';

/** Installed size budget (MB, apparent file sizes) of `npm install ctxloom` without peers. */
export const CORE_BUDGET_MB = 20;
/** Subpaths that must import with no optional peer installed. */
const CORE_SUBPATHS = ['.', './tokenizers', './sources', './stream'];

const REPO = new URL('..', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8'));
const { values } = parseArgs({
  options: { 'skip-build': { type: 'boolean' }, node: { type: 'string' }, keep: { type: 'boolean' } },
});

const scratch = mkdtempSync(join(tmpdir(), 'ctxloom-packed-'));
let failures = 0;

const started = performance.now();
function step(title) {
  process.stdout.write(`\n== ${title} (at ${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
}
function check(ok, what, detail = '') {
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ` — ${detail}` : ''}\n`);
  if (!ok) failures += 1;
  return ok;
}
/** A scratch consumer project (ESM) in `scratch/<name>`. */
function makeConsumer(name) {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  return dir;
}
/** The version of `name` the repository's lockfile installs (so the offline cache has it). */
function lockedVersion(name) {
  return lock.packages[`node_modules/${name}`]?.version ?? manifest.devDependencies[name];
}

try {
  const subpaths = Object.keys(manifest.exports);

  if (values['skip-build']) {
    for (const built of ['dist/core/index.js', 'vocab/o200k_base.tokens.br', 'vocab/cl100k_base.tokens.br']) {
      if (!existsSync(join(REPO, built))) {
        throw new Error(`${built} is missing: run \`npm run prepare\` first or drop --skip-build`);
      }
    }
  } else {
    // What `npm pack` runs first; run on its own so the build's output stays out of pack's JSON.
    step('npm run prepare (the library and the web UI)');
    npmRun(['run', '-s', 'prepare'], REPO);
  }
  step('npm pack');
  const packed = JSON.parse(
    npmRun(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], REPO),
  )[0];
  const tarball = join(scratch, packed.filename);
  const files = packed.files.map((file) => file.path);
  check(
    true,
    `${packed.filename}: ${files.length} files, ${(packed.size / 1e6).toFixed(2)} MB packed, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked`,
  );
  const forbidden = files.filter((file) =>
    /\.test\.|\.test-support\.|(^|\/)mocks?[-./]|\.tsbuildinfo$/u.test(file),
  );
  check(
    forbidden.length === 0,
    'no tests, test-support files or mocks in the tarball',
    forbidden.slice(0, 5).join(', '),
  );
  for (const required of [
    'LICENSE',
    'README.md',
    'dist/cli/bin.js',
    'dist/core/index.js',
    'dist/core/index.d.ts',
    'dist/web/index.html',
    'examples/demo/request.json',
    'schemas/context-config.schema.json',
    'vocab/o200k_base.tokens.br',
    'vocab/cl100k_base.tokens.br',
    'vocab/LICENSE',
  ]) {
    check(files.includes(required), `tarball has ${required}`);
  }
  for (const subpath of subpaths) {
    const target = manifest.exports[subpath];
    for (const condition of ['types', 'default']) {
      check(
        files.includes(target[condition].slice(2)),
        `exports["${subpath}"].${condition} is in the tarball`,
      );
    }
  }

  step('npm install <tarball> (no optional peers)');
  const consumer = join(scratch, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const installed = npmRun(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], consumer, {
    loglevel: 'warn',
  });
  const shippedScripts =
    JSON.parse(readFileSync(join(consumer, 'node_modules/ctxloom/package.json'), 'utf8')).scripts ?? {};
  const installScripts = ['preinstall', 'install', 'postinstall'].filter((name) => name in shippedScripts);
  check(installScripts.length === 0, 'the package has no install-time script', installScripts.join(', '));
  const warnings = `${installed.stdout}\n${installed.stderr}`
    .split('\n')
    .filter((line) => /^npm warn/u.test(line))
    .filter((line) => !/^npm warn install-scripts( |$)/u.test(line));
  const scriptNotice = `${installed.stderr}`.match(/^npm warn install-scripts {3}(\S+) \((\w+):/mu);
  check(
    warnings.length === 0 && (scriptNotice === null || scriptNotice[2] === 'prepare'),
    'npm install <tarball> prints no warning (but the local-tarball-only notice about `prepare`)',
    [...warnings, scriptNotice?.[0] ?? ''].filter(Boolean).join('\n'),
  );
  const packages = readdirSync(join(consumer, 'node_modules'), { withFileTypes: true }).flatMap((entry) =>
    entry.name.startsWith('@')
      ? readdirSync(join(consumer, 'node_modules', entry.name)).map((name) => `${entry.name}/${name}`)
      : entry.name.startsWith('.')
        ? []
        : [entry.name],
  );
  const megabytes = bytesUnder(join(consumer, 'node_modules')) / 1e6;
  check(
    megabytes <= CORE_BUDGET_MB,
    `installed size ${megabytes.toFixed(1)} MB, ${packages.length} packages (budget ${CORE_BUDGET_MB} MB)`,
  );
  const largest = packages
    .map((name) => [name, bytesUnder(join(consumer, 'node_modules', name)) / 1e6])
    .sort((left, right) => right[1] - left[1])
    .slice(0, 5);
  process.stdout.write(
    `     largest: ${largest.map(([name, size]) => `${name} ${size.toFixed(1)} MB`).join(', ')}\n`,
  );
  const peers = Object.keys(manifest.peerDependencies);
  const nodeHere = [process.execPath];
  const core = importAll(nodeHere, consumer, subpaths);
  for (const subpath of subpaths) {
    const result = core[subpath];
    if (CORE_SUBPATHS.includes(subpath)) {
      check(
        result === 'ok',
        `import ctxloom${subpath.slice(1)} with no peers`,
        result === 'ok' ? '' : result,
      );
    } else {
      const missing = /Cannot find package '([^']+)'/u.exec(result)?.[1];
      const fine = result === 'ok' || (missing !== undefined && peers.includes(missing));
      check(
        fine,
        `import ctxloom${subpath.slice(1)} with no peers`,
        result === 'ok' ? 'ok' : `needs ${missing ?? result}`,
      );
    }
  }
  const counted = run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const t = await import('ctxloom/tokenizers');
       process.stdout.write(JSON.stringify([t.createO200kCounter(), t.createCl100kCounter()].map((c) => c.countText('Hello, world!'))));`,
    ],
    { cwd: consumer },
  );
  check(
    counted.status === 0 && counted.stdout === '[4,4]',
    'the shipped o200k and cl100k vocabularies count "Hello, world!" as 4 tokens each',
    `${counted.stdout} ${counted.stderr.trim()}`,
  );
  const bin = join(consumer, 'node_modules/.bin/ctxloom');
  const help = run(process.execPath, [bin, '--help'], { cwd: consumer });
  check(help.status === 0 && help.stdout.includes('usage:'), 'ctxloom --help', `exit ${help.status}`);
  const demo = run(process.execPath, [bin, 'demo'], { cwd: consumer });
  check(
    demo.status === 0 && demo.stdout.length > 0,
    'ctxloom demo',
    `exit ${demo.status} ${demo.stderr.trim()}`,
  );
  const mcp = run(process.execPath, [bin, 'mcp', '.'], { cwd: consumer });
  check(
    mcp.status === 1 && /needs the package "[^"]+".*npm install/u.test(mcp.stderr),
    'ctxloom mcp without @modelcontextprotocol/sdk names the package to install',
    mcp.stderr.trim(),
  );

  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const rows = readInstallTable(readme);
  const rowOf = new Map(rows.flatMap((row) => row.subpaths.map((subpath) => [subpath, row])));
  check(
    subpaths.every((subpath) => rowOf.has(subpath)) &&
      rows.flatMap((row) => row.subpaths).length === rowOf.size,
    "every subpath is in exactly one row of README.md's install table",
    subpaths.filter((subpath) => !rowOf.has(subpath)).join(', '),
  );
  // A README snippet gets the packages of the rows of the subpaths it imports, nothing more.
  const snippets = snippetInstalls(readme, rows);
  // One consumer per distinct package set (rows and snippets naming the same packages share
  // it), installed three at a time from the shared npm cache.
  const declared = (row) => row.packages.every((name) => name in manifest.peerDependencies);
  const sets = [
    ...new Set([
      ...rows.filter(declared).map((row) => [...row.packages].sort().join(' ')),
      ...snippets.map((snippet) => snippet.rowPackages.join(' ')),
    ]),
  ];
  const installs = new Map(
    limited(
      sets.map((set, index) => async () => {
        const dir = makeConsumer(`row-set-${index + 1}`);
        const names = set === '' ? [] : set.split(' ');
        await npmRunAsync(
          [
            'install',
            '--no-audit',
            '--no-fund',
            '--prefer-offline',
            tarball,
            ...names.map((name) => `${name}@${lockedVersion(name)}`),
          ],
          dir,
        );
        return dir;
      }),
      3,
    ).map((promise, index) => [sets[index], promise]),
  );
  for (const promise of installs.values()) promise.catch(() => undefined);
  for (const [index, row] of rows.entries()) {
    const label = row.subpaths.map((subpath) => `ctxloom${subpath.slice(1)}`).join(', ');
    step(`README row ${index + 1}: ${label} with ${row.packages.join(' ') || 'nothing more'}`);
    const unknown = row.packages.filter((name) => !(name in manifest.peerDependencies));
    if (!check(unknown.length === 0, 'the row names only declared peers', unknown.join(', '))) continue;
    const dir = await installs.get([...row.packages].sort().join(' '));
    const imported = importAll(nodeHere, dir, row.subpaths);
    for (const subpath of row.subpaths)
      check(
        imported[subpath] === 'ok',
        `import ctxloom${subpath.slice(1)}`,
        imported[subpath] === 'ok' ? '' : imported[subpath],
      );
    for (const command of row.commands.filter((name) => name !== 'ctxloom mcp')) {
      const cli = run(
        process.execPath,
        [join(dir, 'node_modules/.bin/ctxloom'), command.split(' ')[1], '--help'],
        {
          cwd: dir,
        },
      );
      check(
        cli.status === 0 && cli.stderr.trim() === '',
        `${command} --help`,
        `exit ${cli.status} ${cli.stderr.trim()}`,
      );
    }
  }

  for (const [index, snippet] of snippets.entries()) {
    step(
      `README snippet ${index + 1} ("${snippet.section}") with ${snippet.rowPackages.join(' ') || 'nothing more'}`,
    );
    if (
      !check(
        snippet.unlisted.length === 0,
        'the rows of the ctxloom subpaths it imports name every package it imports',
        snippet.unlisted.join(', '),
      )
    )
      continue;
    const dir = await installs.get(snippet.rowPackages.join(' '));
    if (!existsSync(join(dir, 'examples/notebook')))
      cpSync(join(REPO, 'examples/notebook'), join(dir, 'examples/notebook'), { recursive: true });
    const file = `readme-snippet-${index + 1}.ts`;
    writeFileSync(join(dir, file), snippet.code);
    // Its temporary folders (the session snippet copies the notebook) go with the scratch.
    mkdirSync(join(dir, 'tmp'), { recursive: true });
    const ran = run(process.execPath, [file], {
      cwd: dir,
      timeout: 300_000,
      env: { ...process.env, TMPDIR: join(dir, 'tmp') },
    });
    check(
      ran.status === 0 && ran.stdout.trim().length > 0 && ran.stderr.trim() === '',
      `node ${file} (Node.js ${process.versions.node}, types stripped)`,
      `exit ${ran.status}; stdout: ${ran.stdout.trim().split('\n').slice(0, 2).join(' | ').slice(0, 160)}${
        ran.stderr.trim() === '' ? '' : `; stderr: ${ran.stderr.trim().slice(0, 400)}`
      }`,
    );
  }

  step("README's `npx ctxloom …` commands, each with the packages of the row that lists it");
  const rowOfCommand = new Map(rows.flatMap((row) => row.commands.map((command) => [command, row])));
  const commands = readCliCommands(readme, 'examples/notebook/raft-consensus');
  check(commands.length > 0, 'README has `npx ctxloom …` commands');
  for (const args of commands) {
    const row = rowOfCommand.get(`ctxloom ${args[0]}`);
    // A command in no row "needs nothing more": the consumer without peers (not yet given them).
    const dir = row === undefined ? consumer : await installs.get([...row.packages].sort().join(' '));
    if (!existsSync(join(dir, 'examples/notebook')))
      cpSync(join(REPO, 'examples/notebook'), join(dir, 'examples/notebook'), { recursive: true });
    const cli = run('npx', ['ctxloom', ...args], { cwd: dir, timeout: 300_000 });
    check(
      cli.status === 0 && cli.stdout.trim().length > 0,
      `npx ctxloom ${args.map((arg) => (/\s/u.test(arg) ? `"${arg}"` : arg)).join(' ')}`,
      `with ${row?.packages.join(' ') || 'nothing more'}; exit ${cli.status}${
        cli.stderr.trim() === '' ? '' : `; stderr: ${cli.stderr.trim().slice(0, 300)}`
      }`,
    );
  }

  step("README's MCP install line and client entry, as written");
  const installLine = /^npm install ctxloom @modelcontextprotocol\/sdk[^\n]*$/mu.exec(readme)?.[0];
  const mcpRow = rowOf.get('./mcp');
  if (
    check(
      installLine !== undefined &&
        mcpRow !== undefined &&
        installLine.split(' ').slice(3).sort().join(' ') === [...mcpRow.packages].sort().join(' '),
      "README's MCP install line installs the ctxloom/mcp row's packages",
      installLine ?? 'no `npm install ctxloom @modelcontextprotocol/sdk …` line',
    )
  ) {
    const project = makeConsumer('mcp-project');
    npmRun(
      [
        'install',
        ...installLine
          .split(' ')
          .slice(2)
          .map((word) => (word === 'ctxloom' ? tarball : `${word}@${lockedVersion(word)}`)),
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
      ],
      project,
    );
    mkdirSync(join(project, 'workspace', 'notes'), { recursive: true });
    writeFileSync(join(project, 'workspace', 'notes', 'context-config.json'), '{ "query": "hello" }\n');
    const entryText = /```json\n(\{\s*"mcpServers"[\s\S]*?)```/u.exec(readme)?.[1];
    const entry = entryText === undefined ? undefined : JSON.parse(entryText).mcpServers?.ctxloom;
    if (check(entry !== undefined, 'README has the MCP client entry (mcpServers.ctxloom)')) {
      const args = entry.args.map((arg) => arg.replaceAll('/path/to/project', project));
      const { answer, server } = mcpHandshake(entry.command, args, tmpdir());
      check(
        answer?.id === 1 && answer?.result?.serverInfo !== undefined,
        `the entry as written (${entry.command} ${entry.args.join(' ')}) answers initialize over stdio`,
        answer === undefined
          ? `stdout: ${server.stdout.slice(0, 200)} stderr: ${server.stderr.slice(0, 300)}`
          : '',
      );
    }
  }

  step('npm install every optional peer, then import every subpath');
  const installable = peers.filter((name) => !name.startsWith('@energetic-ai/') && name !== 'vitest');
  npmRun(
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...installable.map((name) => `${name}@${lockedVersion(name)}`),
      `@types/node@${lockedVersion('@types/node')}`,
    ],
    consumer,
  );
  const all = importAll(nodeHere, consumer, subpaths);
  for (const subpath of subpaths) {
    const ok = all[subpath] === 'ok' || (subpath === './testing' && /vitest/u.test(all[subpath]));
    check(ok, `import ctxloom${subpath.slice(1)}`, all[subpath] === 'ok' ? '' : all[subpath]);
  }

  // What an MCP client (Claude Desktop, Claude Code, Cursor) does: start the installed CLI and
  // send `initialize` on stdin; stdout must be the JSON-RPC answer and nothing else.
  const workspace = join(consumer, 'workspace');
  mkdirSync(join(workspace, 'notes'), { recursive: true });
  writeFileSync(join(workspace, 'notes', 'context-config.json'), '{ "query": "hello" }\n');
  const { answer, server } = mcpHandshake(process.execPath, [bin, 'mcp', workspace], consumer);
  check(
    answer?.id === 1 && answer?.result?.serverInfo !== undefined,
    'ctxloom mcp answers initialize over stdio with JSON only',
    answer === undefined
      ? `stdout: ${server.stdout.slice(0, 200)} stderr: ${server.stderr.slice(0, 200)}`
      : '',
  );

  if (values.node !== undefined) {
    step(`Node.js ${values.node} (from the node npm package), every peer installed`);
    const node = [...npm, 'exec', '--yes', `--package=node@${values.node}`, '--', 'node'];
    const version = run(node[0], [...node.slice(1), '--version'], { cwd: consumer });
    process.stdout.write(`node --version: ${version.stdout.trim()}\n`);
    for (const args of [['--help'], ['demo']]) {
      const cli = run(node[0], [...node.slice(1), '--no-warnings', bin, ...args], { cwd: consumer });
      process.stdout.write(
        `ctxloom ${args[0]}: exit ${cli.status}${cli.stderr.trim() ? ` — ${cli.stderr.trim()}` : ''}\n`,
      );
    }
    const imports = importAll(node, consumer, subpaths);
    for (const subpath of subpaths)
      process.stdout.write(`import ctxloom${subpath.slice(1)}: ${imports[subpath]}\n`);
  }

  step('type-check a consumer of every subpath (nodenext, bundler)');
  const tsc = join(REPO, 'node_modules/typescript/bin/tsc');
  for (const resolution of ['nodenext', 'bundler']) {
    const { ours, others } = typeCheckConsumer({ consumer, subpaths, tsc, resolution });
    check(
      ours.length === 0,
      `tsc moduleResolution ${resolution}`,
      [
        ...ours.slice(0, 10),
        others > 0 ? `(${others} diagnostics in other packages' declarations, not counted)` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    );
  }
} catch (error) {
  check(false, 'packed install', error instanceof Error ? error.message : String(error));
} finally {
  if (values.keep) process.stdout.write(`\nscratch kept: ${scratch}\n`);
  else rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(
  `\n${failures === 0 ? 'packed install: all checks passed' : `packed install: ${failures} check(s) failed`}\n`,
);
process.exitCode = failures === 0 ? 0 : 1;
