#!/usr/bin/env node
/**
 * Lists what each subpath of `package.json` `exports` offers and who uses each name through
 * the package entry (`ctxloom`, `ctxloom/<area>`, or a relative import of `src/<area>/index.ts`)
 * from outside the area's own folder: other areas' src, examples/, bench/, test/, web/,
 * scripts/ — and the names README.md, docs/*.md (not decisions, not the spec digest) and
 * examples' READMEs show in code. A name nobody uses that way is a candidate for removal —
 * except a function the specification names as an interface (a `function name(` in a code block
 * of docs/spec.md, the seeds' digest): its user is `spec`, so it is never "unused", and a spec
 * name no subpath exports is flagged (`--check-spec` exits 1 on one) unless a decision record
 * replaced it (SPEC_DEPARTURES).
 *
 *   node scripts/list-exports.mjs               per subpath: every name and its users
 *   node scripts/list-exports.mjs --unused      only the names nobody uses
 *   node scripts/list-exports.mjs --counts      one line per subpath: exports, unused
 *   node scripts/list-exports.mjs --check-spec  only the spec-named functions; exit 1 if one is not exported
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const { values: flags } = parseArgs({
  options: {
    unused: { type: 'boolean' },
    counts: { type: 'boolean' },
    json: { type: 'boolean' },
    'check-spec': { type: 'boolean' },
  },
});
const root = resolve(new URL('..', import.meta.url).pathname);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** subpath (`.`, `./session`) → entry file (absolute). */
const entries = new Map(
  Object.entries(pkg.exports).map(([subpath, target]) => [subpath, join(root, target['ctxloom-source'])]),
);
const subpathOfFile = new Map([...entries].map(([subpath, file]) => [file, subpath]));
const areaOf = (subpath) => dirname(entries.get(subpath));

// Exported names per entry, through the type checker (follows `export *`).
const program = ts.createProgram([...entries.values()], {
  allowImportingTsExtensions: true,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  customConditions: ['ctxloom-source'],
  target: ts.ScriptTarget.ES2024,
  jsx: ts.JsxEmit.ReactJSX,
});
const checker = program.getTypeChecker();
const exported = new Map();
for (const [subpath, file] of entries) {
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
  exported.set(
    subpath,
    symbol === undefined
      ? []
      : checker
          .getExportsOfModule(symbol)
          .map((s) => s.name)
          .sort(),
  );
}

/** subpath → name → Set of user kinds. */
const users = new Map([...entries.keys()].map((subpath) => [subpath, new Map()]));
const use = (subpath, name, kind) => {
  const names = users.get(subpath);
  if (!names.has(name)) names.set(name, new Set());
  names.get(name).add(kind);
};

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

const kindOf = (file) => {
  const path = relative(root, file);
  if (/\.test\.tsx?$|\.test-support\.ts$/.test(path) || path.startsWith('test/')) return 'test';
  return path.split('/')[0] === 'src' ? `src/${path.split('/')[1]}` : path.split('/')[0];
};

function entryOf(specifier, fromFile) {
  if (specifier === 'ctxloom') return '.';
  if (specifier.startsWith('ctxloom/'))
    return entries.has(`./${specifier.slice(8)}`) ? `./${specifier.slice(8)}` : undefined;
  if (!specifier.startsWith('.')) return undefined;
  return subpathOfFile.get(resolve(dirname(fromFile), specifier));
}

const codeFiles = ['src', 'examples', 'bench', 'test', 'web', 'scripts'].flatMap((dir) =>
  walk(join(root, dir)).filter((file) => /\.(ts|tsx|mjs)$/.test(file)),
);
for (const file of codeFiles) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const kind = kindOf(file);
  const visit = (node) => {
    let specifier;
    let names;
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifier = node.moduleSpecifier.text;
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings)))
        names = bindings.elements.map((element) => (element.propertyName ?? element.name).text);
      else names = ['*'];
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) {
        specifier = argument.text;
        let parent = node.parent;
        if (ts.isAwaitExpression(parent)) parent = parent.parent;
        names =
          ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)
            ? parent.name.elements.map((element) => (element.propertyName ?? element.name).getText())
            : ['*'];
      }
    }
    if (specifier !== undefined) {
      const subpath = entryOf(specifier, file);
      // An area's own files do not count: they are its implementation.
      if (subpath !== undefined && !file.startsWith(`${areaOf(subpath)}/`))
        for (const name of names) use(subpath, name, kind);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

// Names shown in the user documentation's code (inline `code` and fenced blocks).
const docFiles = [
  join(root, 'README.md'),
  ...walk(join(root, 'docs')).filter(
    (file) => file.endsWith('.md') && !file.includes('/decisions/') && !file.endsWith('/spec.md'),
  ),
  ...walk(join(root, 'examples')).filter((file) => file.endsWith('.md')),
];
const documented = new Set();
for (const file of docFiles) {
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g))
    for (const word of (match[1] ?? match[2]).matchAll(/[A-Za-z_$][\w$]*/g)) documented.add(word[0]);
}
// Functions the specification names as an interface (seed code blocks in docs/spec.md).
const specText = readFileSync(join(root, 'docs/spec.md'), 'utf8');
/** name → line of docs/spec.md. */
const specNamed = new Map();
for (const block of specText.matchAll(/```[^\n]*\n([\s\S]*?)```/g)) {
  const startLine = specText.slice(0, block.index).split('\n').length + 1;
  block[1].split('\n').forEach((line, index) => {
    const name = /^\s*(?:export\s+)?(?:async\s+)?function\s+([A-Za-z_$][\w$]*)\s*\(/.exec(line)?.[1];
    if (name !== undefined && !specNamed.has(name)) specNamed.set(name, startLine + index);
  });
}
/** Spec-named functions a decision replaced on purpose: name → the decision that did. */
const SPEC_DEPARTURES = {
  createPartAccumulator: 'docs/decisions/011 (the AI SDK UI message stream is the part accumulator)',
};
// check:packed reads some names off a namespace (`t.createO200kCounter()`).
const packed = readFileSync(join(root, 'scripts/check-packed-install.mjs'), 'utf8');

const usersOf = (subpath, name) => {
  const kinds = new Set([...(users.get(subpath).get(name) ?? []), ...(users.get(subpath).get('*') ?? [])]);
  if (documented.has(name)) kinds.add('docs');
  if (specNamed.has(name)) kinds.add('spec');
  if (new RegExp(`\\.${name}\\b`).test(packed)) kinds.add('check:packed');
  return kinds;
};

// A type a kept export's signature names is kept with it (`signature`): users must be able to
// name the options, results and parts of what they call. Kept = used by anything but tests.
const resolved = (symbol) =>
  symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
/** declared symbol → [subpath, name][] of the entries exporting it. */
const exportsOfSymbol = new Map();
for (const [subpath, file] of entries) {
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file));
  for (const exportSymbol of symbol === undefined ? [] : checker.getExportsOfModule(symbol)) {
    const target = resolved(exportSymbol);
    if (!exportsOfSymbol.has(target)) exportsOfSymbol.set(target, []);
    exportsOfSymbol.get(target).push([subpath, exportSymbol.name]);
  }
}
const signature = new Set();
const seen = new Set();
function reach(symbol) {
  if (seen.has(symbol)) return;
  seen.add(symbol);
  for (const declaration of symbol.declarations ?? []) visitSignature(declaration);
}
function visitSignature(node) {
  if (ts.isBlock(node)) return;
  if (
    (ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node)) &&
    (ts.isPrivateIdentifier(node.name) || ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private)
  )
    return;
  if (ts.isVariableDeclaration(node)) {
    if (node.type) visitSignature(node.type);
    else if (
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      visitSignature(node.initializer);
    return;
  }
  if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node) || ts.isTypeQueryNode(node)) {
    const name = ts.isTypeReferenceNode(node)
      ? node.typeName
      : ts.isTypeQueryNode(node)
        ? node.exprName
        : node.expression;
    const symbol = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.left : name);
    if (symbol !== undefined) {
      const target = resolved(symbol);
      for (const [subpath, exportName] of exportsOfSymbol.get(target) ?? [])
        signature.add(`${subpath}\0${exportName}`);
      reach(target);
    }
  }
  ts.forEachChild(node, visitSignature);
}
for (const [subpath, names] of exported)
  for (const name of names) {
    const kinds = usersOf(subpath, name);
    if ([...kinds].some((kind) => kind !== 'test')) {
      const symbol = [...exportsOfSymbol].find(([, list]) =>
        list.some(([s, n]) => s === subpath && n === name),
      )?.[0];
      if (symbol !== undefined) reach(symbol);
    }
  }

const report = [];
for (const [subpath, names] of exported) {
  const rows = names.map((name) => {
    const kinds = usersOf(subpath, name);
    if (signature.has(`${subpath}\0${name}`)) kinds.add('signature');
    return { name, users: [...kinds].sort() };
  });
  report.push({ subpath, rows });
}

const exportedAnywhere = new Set([...exported.values()].flat());
const specMissing = [...specNamed].filter(
  ([name]) => !exportedAnywhere.has(name) && SPEC_DEPARTURES[name] === undefined,
);
for (const [name, line] of specMissing)
  process.stderr.write(
    `spec: docs/spec.md:${line} names function ${name} as an interface, but no subpath exports it — export it again (or record the departure in a decision and SPEC_DEPARTURES)\n`,
  );

if (flags['check-spec']) {
  for (const [name, line] of specNamed) {
    const where = report.flatMap(({ subpath, rows }) =>
      rows.some((row) => row.name === name) ? [subpath] : [],
    );
    process.stdout.write(
      `${name.padEnd(24)} docs/spec.md:${String(line).padEnd(5)} ${where.length > 0 ? `exported from ${where.join(', ')}` : (SPEC_DEPARTURES[name] ?? 'NOT EXPORTED')}\n`,
    );
  }
  if (specMissing.length > 0) process.exitCode = 1;
} else if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else if (flags.counts) {
  let total = 0;
  let unused = 0;
  for (const { subpath, rows } of report) {
    const none = rows.filter((row) => row.users.length === 0).length;
    const testsOnly = rows.filter((row) => row.users.length === 1 && row.users[0] === 'test').length;
    const signatureOnly = rows.filter((row) => row.users.length === 1 && row.users[0] === 'signature').length;
    total += rows.length;
    unused += none;
    process.stdout.write(
      `${subpath.padEnd(14)} ${String(rows.length).padStart(4)} exports ${String(none).padStart(4)} unused ${String(testsOnly).padStart(4)} tests only ${String(signatureOnly).padStart(4)} signature only\n`,
    );
  }
  process.stdout.write(
    `${'total'.padEnd(14)} ${String(total).padStart(4)} exports ${String(unused).padStart(4)} unused\n`,
  );
} else
  for (const { subpath, rows } of report) {
    const shown = flags.unused ? rows.filter((row) => row.users.length === 0) : rows;
    process.stdout.write(`\n${subpath} (${rows.length} exports)\n`);
    for (const row of shown)
      process.stdout.write(`  ${row.name.padEnd(40)} ${row.users.join(', ') || '—'}\n`);
  }
