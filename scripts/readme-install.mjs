// What the README promises about installing and running ctxloom, read from its text: the install
// table's rows, its ```ts snippets with the packages their rows name, and its `npx ctxloom …`
// commands. `scripts/check-packed-install.mjs` checks each against the packed tarball in scratch
// consumers; the tests in readme-install.test.ts check the reading.

/** The rows of README.md's install table: subpaths, CLI commands and the packages named. */
export function readInstallTable(readme) {
  const lines = readme.split('\n');
  const header = lines.findIndex((line) => /^\| subpath \| install with it \|/u.test(line));
  if (header === -1) throw new Error('README.md has no "| subpath | install with it |" table');
  const rows = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [, first, second] = line.split('|');
    const names = (cell) => [...cell.matchAll(/`([^`]+)`/gu)].map((match) => match[1]);
    rows.push({
      subpaths: names(first)
        .filter((name) => /^ctxloom(\/[a-z-]+)?$/u.test(name))
        .map((name) => (name === 'ctxloom' ? '.' : `./${name.slice('ctxloom/'.length)}`)),
      commands: names(first).filter((name) => /^ctxloom [a-z]+$/u.test(name)),
      packages: names(second),
      text: line,
    });
  }
  return rows;
}

/**
 * The README's ```ts snippets: the section each is under, its code, the ctxloom subpaths it
 * imports and the other packages it imports (`node:` built-ins left out).
 */
export function readSnippets(readme) {
  const snippets = [];
  let section = '';
  const pattern = /^## (.+)$|^```ts\n([\s\S]*?)^```$/gmu;
  for (const match of readme.matchAll(pattern)) {
    if (match[1] !== undefined) {
      section = match[1];
      continue;
    }
    const code = match[2];
    const specifiers = [...code.matchAll(/^\s*import\s[^;]*?from\s+'([^']+)'/gmu)].map((found) => found[1]);
    snippets.push({
      section,
      code,
      subpaths: specifiers
        .filter((name) => /^ctxloom(\/[a-z-]+)?$/u.test(name))
        .map((name) => (name === 'ctxloom' ? '.' : `./${name.slice('ctxloom/'.length)}`)),
      packages: specifiers.filter((name) => !name.startsWith('node:') && !/^ctxloom(\/|$)/u.test(name)),
    });
  }
  return snippets;
}

/** The README's `npx ctxloom …` commands (a `<dir>` placeholder becomes `dir`), as argument lists. */
export function readCliCommands(readme, dir) {
  return [...readme.matchAll(/`npx ctxloom ([^`]+)`/gu)]
    .map((match) => match[1])
    .filter((command) => /^[a-z]/u.test(command)) // not `npx ctxloom <command>` or `npx ctxloom …`
    .map((command) =>
      [...command.replaceAll('<dir>', dir).matchAll(/"([^"]*)"|(\S+)/gu)].map((word) => word[1] ?? word[2]),
    );
}

/**
 * Each snippet with what its consumer installs: `rowPackages`, the union of the packages named
 * by the rows of the ctxloom subpaths it imports (sorted), and `unlisted`, what it imports that
 * those rows do not name (or a subpath in no row) — a wrong row shows up there.
 */
export function snippetInstalls(readme, rows = readInstallTable(readme)) {
  const rowOf = new Map(rows.flatMap((row) => row.subpaths.map((subpath) => [subpath, row])));
  return readSnippets(readme).map((snippet) => {
    const rowPackages = [
      ...new Set(snippet.subpaths.flatMap((subpath) => rowOf.get(subpath)?.packages ?? [])),
    ].sort();
    return {
      ...snippet,
      rowPackages,
      unlisted: [
        ...snippet.packages.filter((name) => !rowPackages.includes(name)),
        ...snippet.subpaths
          .filter((subpath) => !rowOf.has(subpath))
          .map((subpath) => `ctxloom${subpath.slice(1)} (in no row)`),
      ],
    };
  });
}
