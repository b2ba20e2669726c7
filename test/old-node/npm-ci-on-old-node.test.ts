// `npm ci` of this repository run by npm on a Node.js older than `engines.node` — how the README's
// quick start goes where the system Node is 20 (the scripts then run on the pinned Node 24).
// npm checks every package's `engines` against the Node running npm itself. The root's own
// `engines` (what the library needs) is not the development environment's: `devEngines` says
// that, and npm then skips the root's `engines`. The warnings left are npm's true statements
// about dev tools (Vitest, the AI SDK, …) that need a newer Node than the one running npm; they
// can only be hidden with every other warning (decision 057). A dry run from the lockfile,
// offline: nothing is installed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnOldNode, IS_OLD, OLD_NODE, OLD_VERSION } from './old-node.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean }>;
};

describeOnOldNode(`npm ci on Node.js ${OLD_VERSION ?? '(none)'} (${OLD_NODE})`, () => {
  let project = '';
  let output = '';
  beforeAll(() => {
    expect(IS_OLD, `${OLD_NODE} is a Node.js older than engines.node`).toBe(true);
    // The npm that comes with that Node: <prefix>/lib/node_modules/npm.
    const npmCli = join(dirname(dirname(realpathSync(OLD_NODE))), 'lib/node_modules/npm/bin/npm-cli.js');
    expect(existsSync(npmCli), npmCli).toBe(true);
    project = mkdtempSync(join(tmpdir(), 'ctxloom-npm-ci-'));
    for (const file of ['package.json', 'package-lock.json'])
      copyFileSync(join(REPO, file), join(project, file));
    const result = spawnSync(
      OLD_NODE,
      [npmCli, 'ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'],
      { cwd: project, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'warn' } },
    );
    output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output).toBe(0);
  });
  afterAll(() => {
    if (project !== '') rmSync(project, { recursive: true, force: true });
  });

  it('checks the development environment against devEngines, which this Node satisfies', () => {
    expect(output).not.toMatch(/EBADDEVENGINES/u);
  });

  it('prints no engine warning about ctxloom itself, and the rest only about dev-only packages', () => {
    const warned = [...output.matchAll(/^npm warn EBADENGINE +package: '(@?[^@']+)@[^']+'/gmu)].map(
      (match) => match[1] as string,
    );
    expect(warned).not.toContain('ctxloom');
    expect(warned.length).toBeGreaterThan(0); // Node 20 is below Vitest's and the AI SDK's engines
    for (const name of warned) expect(lock.packages[`node_modules/${name}`]?.dev, name).toBe(true);
  });
});
