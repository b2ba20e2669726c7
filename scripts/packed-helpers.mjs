// Child processes of scripts/check-packed-install.mjs: npm (the one running the script), a
// Node.js importing the package's subpaths, an MCP server's first answer; and small helpers.
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The npm running this script (`npm run check:packed`), else the one on PATH. */
export const npm = process.env.npm_execpath
  ? [process.execPath, process.env.npm_execpath]
  : [process.platform === 'win32' ? 'npm.cmd' : 'npm'];

/** `spawnSync` with text output and room for long outputs. */
export function run(command, args, options = {}) {
  return spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
}
/** `npm <args>` in `cwd`; throws on a non-zero exit. Its stdout (at `loglevel` error) or the whole result. */
export function npmRun(args, cwd, { loglevel = 'error' } = {}) {
  const result = run(npm[0], [...npm.slice(1), ...args], {
    cwd,
    env: { ...process.env, npm_config_loglevel: loglevel },
  });
  if (result.status !== 0)
    throw new Error(`npm ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return loglevel === 'error' ? result.stdout : result;
}
/** `npm <args>` in `cwd` without blocking, so a few installs share the machine's waits. */
export function npmRunAsync(args, cwd) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(npm[0], [...npm.slice(1), ...args], {
      cwd,
      env: { ...process.env, npm_config_loglevel: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0 ? resolvePromise() : reject(new Error(`npm ${args.join(' ')} failed:\n${output}`)),
    );
  });
}
/** Runs `tasks` (functions returning promises) at most `limit` at a time; their promises in order. */
export function limited(tasks, limit) {
  const results = [];
  const slots = Array.from({ length: limit }, () => Promise.resolve());
  tasks.forEach((task, index) => {
    const slot = index % limit;
    slots[slot] = slots[slot].catch(() => undefined).then(task);
    results.push(slots[slot]);
  });
  return results;
}
/** Starts `command args` as an MCP client would, sends `initialize`; the parsed first stdout line. */
export function mcpHandshake(command, args, cwd) {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'check', version: '1' } },
  };
  const server = run(command, args, { cwd, input: `${JSON.stringify(initialize)}\n`, timeout: 60_000 });
  const firstLine = server.stdout.split('\n')[0] ?? '';
  try {
    return { answer: JSON.parse(firstLine), server };
  } catch {
    return { answer: undefined, server };
  }
}
/** Sum of the apparent sizes of the files under `dir` (symlinks counted once, not followed). */
export function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else total += lstatSync(path).size;
  }
  return total;
}
/** Imports every subpath in a child process on `node`; returns subpath → 'ok' or the error. */
export function importAll(node, cwd, subpaths) {
  const script = `
    const results = {};
    for (const subpath of ${JSON.stringify(subpaths)}) {
      const specifier = subpath === '.' ? 'ctxloom' : 'ctxloom/' + subpath.slice(2);
      try { const module = await import(specifier); results[subpath] = Object.keys(module).length > 0 ? 'ok' : 'no exports'; }
      catch (error) { results[subpath] = (error.code ?? '') + ' ' + String(error.message).split('\\n')[0]; }
    }
    process.stdout.write(JSON.stringify(results));`;
  const result = run(node[0], [...node.slice(1), '--input-type=module', '-e', script], { cwd });
  if (result.status !== 0)
    return Object.fromEntries(subpaths.map((s) => [s, `exit ${result.status}: ${result.stderr.trim()}`]));
  return JSON.parse(result.stdout);
}

/**
 * Type-checks `index.ts` in `consumer`, which imports every subpath, with `tsc` under one
 * `moduleResolution` (`nodenext` or `bundler`; skipLibCheck off). `ours`: diagnostics in the
 * consumer or in ctxloom's declarations; `others`: how many are in other packages'.
 */
export function typeCheckConsumer({ consumer, subpaths, tsc, resolution }) {
  const specifier = (subpath) => (subpath === '.' ? 'ctxloom' : `ctxloom/${subpath.slice(2)}`);
  writeFileSync(
    join(consumer, 'index.ts'),
    `${subpaths.map((subpath, index) => `import * as m${index} from '${specifier(subpath)}';`).join('\n')}
export const modules = [${subpaths.map((_, index) => `m${index}`).join(', ')}];\n`,
  );
  const config = {
    compilerOptions: {
      target: 'ES2022',
      module: resolution === 'nodenext' ? 'nodenext' : 'esnext',
      moduleResolution: resolution,
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      types: ['node'],
    },
    files: ['index.ts'],
  };
  writeFileSync(join(consumer, `tsconfig.${resolution}.json`), JSON.stringify(config));
  const result = run(process.execPath, [tsc, '-p', `tsconfig.${resolution}.json`], { cwd: consumer });
  const lines = result.stdout.split('\n');
  const ours = lines.filter((line) => /^(index\.ts|node_modules\/ctxloom\/)/u.test(line));
  return { ours, others: lines.filter((line) => /error TS/u.test(line)).length - ours.length };
}
