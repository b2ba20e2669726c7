#!/usr/bin/env node
// The layering rule, checked. docs/architecture.md ("Layers of the code") puts every area
// (`src/<area>/`) in a tier; an area may import only areas of lower tiers. This reads that
// table, parses every shipped source file with TypeScript's parser (static imports, re-exports,
// `import()` — `import type` counts too) and fails on:
//   - an area that is not in the table, or a table area with no folder;
//   - an import of an area of the same or a higher tier (an upward import);
//   - any cycle in the area graph (impossible under the tiers, reported anyway so a table edited
//     into a cycle still fails);
//   - a value import from `web/` into `src/` other than `src/stream` (types are fine).
// Test files (`*.test.ts`, `*.test-d.ts`) and test helpers (`*.test-support.ts`, left out of the
// package) are not shipped and may import any area.
//
//   node scripts/check-layers.mjs [--graph]
//
// --graph prints the area graph (area → areas it imports, with counts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const REPO = new URL('..', import.meta.url).pathname;
const TEST_FILE = /\.test\.ts$|\.test-d\.ts$|\.test-support\.ts$/u;

/** Tier of each area, from the table in docs/architecture.md. */
export function readTiers(markdown) {
  const section = markdown.split(/^## Layers of the code$/mu)[1]?.split(/^## /mu)[0];
  if (section === undefined) throw new Error('docs/architecture.md has no "## Layers of the code" section');
  const tiers = new Map();
  for (const line of section.split('\n')) {
    const row = /^\|\s*(\d+)\s*\|([^|]*)\|/u.exec(line);
    if (row === null) continue;
    for (const [, area] of row[2].matchAll(/`([a-z-]+)`/gu)) tiers.set(area, Number(row[1]));
  }
  if (tiers.size === 0) throw new Error('docs/architecture.md "Layers of the code" has no tier table');
  return tiers;
}

/** Relative module specifiers of a file, each with whether it brings values or only types. */
function importsOf(path) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      let typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : undefined;
      if (!typeOnly && bindings && ts.isNamedImports(bindings) && node.importClause?.name === undefined) {
        typeOnly = bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
      }
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter(({ specifier }) => specifier.startsWith('.'));
}

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .filter((file) => /\.tsx?$/u.test(file) && !file.endsWith('.d.ts') && !TEST_FILE.test(file))
    .filter((file) => !file.split('/').includes('node_modules'))
    .map((file) => join(dir, file));
}

/** Every problem found (empty when the layering holds), and the area graph. */
export function checkLayers({ repo = REPO } = {}) {
  const tiers = readTiers(readFileSync(join(repo, 'docs/architecture.md'), 'utf8'));
  const src = join(repo, 'src');
  const problems = [];
  const areas = readdirSync(src, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  for (const area of areas)
    if (!tiers.has(area)) problems.push(`src/${area} has no tier in docs/architecture.md`);
  for (const area of tiers.keys())
    if (!areas.includes(area))
      problems.push(`docs/architecture.md names area "${area}", which has no src/${area}`);

  const graph = new Map(areas.map((area) => [area, new Map()]));
  for (const file of sourceFiles(src)) {
    const from = relative(src, file).split('/')[0];
    for (const { specifier } of importsOf(file)) {
      const target = relative(src, resolve(dirname(file), specifier));
      const to = target.split('/')[0];
      if (target.startsWith('..') || to === from || !graph.has(to)) continue;
      graph.get(from).set(to, (graph.get(from).get(to) ?? 0) + 1);
      if (tiers.has(from) && tiers.has(to) && tiers.get(to) >= tiers.get(from)) {
        problems.push(
          `${relative(repo, file)} imports ${specifier}: ${from} (tier ${tiers.get(from)}) may not import ${to} (tier ${tiers.get(to)})`,
        );
      }
    }
  }
  for (const cycle of findCycles(graph)) problems.push(`area cycle: ${cycle.join(' → ')}`);

  const web = join(repo, 'web/src');
  for (const file of sourceFiles(web)) {
    for (const { specifier, typeOnly } of importsOf(file)) {
      const target = relative(src, resolve(dirname(file), specifier));
      if (target.startsWith('..') || typeOnly || target.startsWith('stream/')) continue;
      problems.push(
        `${relative(repo, file)} imports values from src/${target}: web may import values only from src/stream`,
      );
    }
  }
  return { problems, graph };
}

/** One cycle per strongly connected group of areas (Tarjan), each as a closed path. */
function findCycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const cycles = [];
  let next = 0;
  const connect = (area) => {
    index.set(area, next);
    low.set(area, next);
    next += 1;
    stack.push(area);
    for (const to of graph.get(area).keys()) {
      if (!index.has(to)) {
        connect(to);
        low.set(area, Math.min(low.get(area), low.get(to)));
      } else if (stack.includes(to)) {
        low.set(area, Math.min(low.get(area), index.get(to)));
      }
    }
    if (low.get(area) !== index.get(area)) return;
    const group = stack.splice(stack.indexOf(area));
    if (group.length > 1) cycles.push(shortestCycle(graph, group));
  };
  for (const area of graph.keys()) if (!index.has(area)) connect(area);
  return cycles;
}

/** A shortest closed path through the alphabetically first area of a strongly connected group. */
function shortestCycle(graph, group) {
  const start = [...group].sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const area = queue.shift();
    for (const to of [...graph.get(area).keys()].sort()) {
      if (to === start) {
        const path = [start];
        for (let at = area; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (group.includes(to) && !previous.has(to)) {
        previous.set(to, area);
        queue.push(to);
      }
    }
  }
  return [...group, group[0]];
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { problems, graph } = checkLayers();
  if (process.argv.includes('--graph')) {
    for (const [from, targets] of graph)
      process.stdout.write(
        `${from} → ${[...targets].map(([to, count]) => `${to} (${count})`).join(', ') || '—'}\n`,
      );
  }
  for (const problem of problems) process.stderr.write(`layers: ${problem}\n`);
  if (problems.length > 0) {
    process.stderr.write(
      `layers: ${problems.length} problem(s); the rule is in docs/architecture.md, "Layers of the code"\n`,
    );
    process.exitCode = 1;
  }
}
