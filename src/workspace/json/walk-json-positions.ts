import { CtxloomError } from '../../core/index.ts';
import type { JsonNode, TextPosition } from './parse-json-tree.ts';

/**
 * Builds the {@link JsonNode} tree of `text`, whose value `JSON.parse` already returned, by one
 * lexical walk that records where every value and key sits (line, column, offset). The text is
 * known to be valid JSON, so the walk only skips: strings to their closing quote, literals to
 * their last character; values come from `value`, so no string or number is decoded twice
 * (a key is decoded only when it holds an escape). Duplicate keys keep the last member, as
 * `JSON.parse` does. Throws `parse-error` naming `file`, line and column past `maxDepth`.
 */
export function walkJsonPositions(text: string, value: unknown, file: string, maxDepth: number): JsonNode {
  let index = 0;
  let line = 1;
  let lineStart = 0;
  const here = (): TextPosition => ({ offset: index, line, column: index - lineStart + 1 });
  const skipSpace = (): void => {
    for (;;) {
      const code = text.charCodeAt(index);
      if (code === 0x0a) {
        line++;
        lineStart = index + 1;
      } else if (code !== 0x20 && code !== 0x09 && code !== 0x0d) return;
      index++;
    }
  };
  /** Index of the closing quote of the string whose opening quote is at `from`. */
  const stringEnd = (from: number): number => {
    let at = text.indexOf('"', from + 1);
    for (;;) {
      let backslashes = 0;
      while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
      if (backslashes % 2 === 0) return at;
      at = text.indexOf('"', at + 1);
    }
  };
  const walk = (current: unknown, depth: number): JsonNode => {
    if (depth > maxDepth)
      throw new CtxloomError({
        code: 'parse-error',
        message: `invalid JSON: nesting deeper than ${maxDepth}`,
        file,
        line,
        column: index - lineStart + 1,
      });
    skipSpace();
    const start = here();
    const code = text.charCodeAt(index);
    if (code === 0x7b || code === 0x5b) {
      const isObject = code === 0x7b;
      const container = (current ?? {}) as Record<string, unknown>;
      const children: NonNullable<JsonNode['children']> = [];
      let positions: Map<string, number> | undefined;
      let dropped = 0;
      index++;
      skipSpace();
      while (text.charCodeAt(index) !== (isObject ? 0x7d : 0x5d)) {
        skipSpace();
        const keyStart = here();
        let key: string | number = children.length;
        if (isObject) {
          const end = stringEnd(index);
          const raw = text.slice(index + 1, end);
          key = raw.includes('\\') ? (JSON.parse(text.slice(index, end + 1)) as string) : raw;
          index = end + 1;
          skipSpace();
          index++; // ':'
        }
        const own = isObject ? Object.hasOwn(container, key) : true;
        const node = walk(own ? container[key] : undefined, depth + 1);
        if (isObject) {
          positions ??= new Map();
          const earlier = positions.get(key as string);
          if (earlier !== undefined) {
            (children[earlier] as { key: unknown }).key = undefined;
            dropped++;
          }
          positions.set(key as string, children.length);
        }
        children.push({ key, keyStart, node });
        skipSpace();
        if (text.charCodeAt(index) === 0x2c) index++;
      }
      index++;
      const kept = dropped === 0 ? children : children.filter((child) => child.key !== undefined);
      return { kind: isObject ? 'object' : 'array', value: current, start, end: here(), children: kept };
    }
    if (code === 0x22) {
      index = stringEnd(index) + 1;
      return { kind: 'string', value: current, start, end: here() };
    }
    // A literal: runs to the next structural character or space.
    while (index < text.length) {
      const next = text.charCodeAt(index);
      if (
        next === 0x2c ||
        next === 0x7d ||
        next === 0x5d ||
        next === 0x20 ||
        next === 0x0a ||
        next === 0x09 ||
        next === 0x0d
      )
        break;
      index++;
    }
    const kind = code === 0x74 || code === 0x66 ? 'boolean' : code === 0x6e ? 'null' : 'number';
    return { kind, value: current, start, end: here() };
  };
  return walk(value, 0);
}
