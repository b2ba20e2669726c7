import { readdir, readFile } from 'node:fs/promises';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../web/src/i18n.ts';

const WEB = new URL('../../web/src/', import.meta.url);
/** Props whose value a user reads or hears. */
const VISIBLE_PROPS = new Set([
  'title',
  'aria-label',
  'placeholder',
  'alt',
  'label',
  'placeholderText',
  'sendLabel',
]);
const LETTER = /\p{L}/u;

/** Every user-visible literal in the UI's TSX that does not come from `t(...)`. */
async function bypasses(): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(WEB)) {
    if (!name.endsWith('.tsx')) continue;
    const text = await readFile(new URL(name, WEB), 'utf8');
    const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const where = (node: ts.Node) =>
      `${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node) => {
      if (ts.isJsxText(node) && LETTER.test(node.text))
        found.push(`${where(node)} text "${node.text.trim()}"`);
      if (ts.isJsxAttribute(node) && VISIBLE_PROPS.has(node.name.getText(source)) && node.initializer) {
        const value = node.initializer;
        const literal = ts.isStringLiteral(value)
          ? value
          : ts.isJsxExpression(value) && value.expression && ts.isStringLiteralLike(value.expression)
            ? value.expression
            : undefined;
        if (literal !== undefined && LETTER.test(literal.text))
          found.push(`${where(node)} ${node.name.getText(source)}="${literal.text}"`);
      }
      // A string literal rendered as a JSX child: {'text'}
      if (ts.isJsxExpression(node) && node.expression && ts.isStringLiteralLike(node.expression)) {
        const parent = node.parent;
        if ((ts.isJsxElement(parent) || ts.isJsxFragment(parent)) && LETTER.test(node.expression.text))
          found.push(`${where(node)} child "${node.expression.text}"`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('the UI’s i18n table', () => {
  it('is the only source of visible text: no JSX text or visible prop bypasses t()', async () => {
    expect(await bypasses()).toEqual([]);
  });

  it('has every key in both languages, with the same placeholders', () => {
    const keys = Object.keys(MESSAGES.en).sort();
    expect(Object.keys(MESSAGES.zh).sort()).toEqual(keys);
    for (const key of keys) {
      const names = (text: string) => [...text.matchAll(/\{(\w+)\}/gu)].map((match) => match[1]).sort();
      const en = MESSAGES.en[key as keyof typeof MESSAGES.en];
      const zh = MESSAGES.zh[key as keyof typeof MESSAGES.zh];
      expect(names(zh), key).toEqual(names(en));
    }
  });
});
