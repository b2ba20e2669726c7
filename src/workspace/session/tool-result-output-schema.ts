import { z } from 'zod';
import type { JsonValue } from '../../core/index.ts';
import { MAX_JSON_DEPTH } from '../json/parse-json-tree.ts';

/**
 * True when `value` is JSON — null, a boolean, a finite number, a string, or arrays and plain
 * objects of them — nested at most {@link MAX_JSON_DEPTH} deep, as a parsed file can be (a
 * value handed in by code may be deeper, or a cycle: refused, never a stack overflow).
 */
function isJsonValue(value: unknown, depth = 0): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  return Object.values(value).every((item) => isJsonValue(item, depth + 1));
}

const jsonValue = z.custom<JsonValue>((value) => isJsonValue(value), {
  message: `expected a JSON value (null, a boolean, a number, a string, or an array or object of them, at most ${MAX_JSON_DEPTH} deep)`,
});

const providerReference = z.record(z.string(), z.string());

// The AI SDK's tagged file data as JSON can hold it: its `url` variant takes a `URL` object,
// which a stored file cannot carry (a `file-url` part takes the address as a string).
const taggedFileData = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('data'), data: z.string() }),
  z.looseObject({ type: z.literal('reference'), reference: providerReference }),
  z.looseObject({ type: z.literal('text'), text: z.string() }),
]);

const fileId = z.union([z.string(), z.record(z.string(), z.string())]);

/** One part of a `content` output, as the AI SDK accepts it. */
const contentPart = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({
    type: z.literal('file'),
    data: taggedFileData,
    mediaType: z.string(),
    filename: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal('file-data'),
    data: z.string(),
    mediaType: z.string(),
    filename: z.string().optional(),
  }),
  z.looseObject({ type: z.literal('file-url'), url: z.string(), mediaType: z.string().optional() }),
  z.looseObject({ type: z.literal('file-id'), fileId }),
  z.looseObject({ type: z.literal('file-reference'), providerReference }),
  z.looseObject({ type: z.literal('image-data'), data: z.string(), mediaType: z.string() }),
  z.looseObject({ type: z.literal('image-url'), url: z.string() }),
  z.looseObject({ type: z.literal('image-file-id'), fileId }),
  z.looseObject({ type: z.literal('image-file-reference'), providerReference }),
  z.looseObject({ type: z.literal('custom') }),
]);

/**
 * Schema of a stored tool result's `output`: the AI SDK's `ToolResultOutput` (ai 7), each
 * variant checked by its type — `text` and `error-text` need a string `value`, `json` and
 * `error-json` a JSON `value`, `content` an array of text, file, image and custom parts, and
 * `execution-denied` takes an optional string `reason`. Other types are refused. Extra fields
 * (such as `providerOptions`) are kept.
 */
export const toolResultOutputSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), value: z.string() }),
  z.looseObject({ type: z.literal('json'), value: jsonValue }),
  z.looseObject({ type: z.literal('execution-denied'), reason: z.string().optional() }),
  z.looseObject({ type: z.literal('error-text'), value: z.string() }),
  z.looseObject({ type: z.literal('error-json'), value: jsonValue }),
  z.looseObject({ type: z.literal('content'), value: z.array(contentPart) }),
]);
