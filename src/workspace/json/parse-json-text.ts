import { CtxloomError } from '../../core/index.ts';
import { checkJsonDepth } from './check-json-depth.ts';
import { MAX_JSON_DEPTH, parseJsonTree } from './parse-json-tree.ts';

/**
 * `JSON.parse` for files ctxloom reads where positions are not needed on success (it is
 * faster than {@link parseJsonTree}): on a syntax error the text is parsed again with
 * `parseJsonTree`, so the `parse-error` names `file`, `line` and `column` — never a raw
 * `SyntaxError`. Text nested deeper than {@link MAX_JSON_DEPTH} is refused the same way,
 * before `JSON.parse` sees it (`checkJsonDepth`).
 */
export function parseJsonText(text: string, file: string): unknown {
  checkJsonDepth(text, file, MAX_JSON_DEPTH);
  try {
    return JSON.parse(text);
  } catch (cause) {
    parseJsonTree(text, file); // throws the located parse-error
    throw new CtxloomError({ code: 'parse-error', message: 'invalid JSON', file, line: 1, column: 1, cause });
  }
}
