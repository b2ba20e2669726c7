import { promisify } from 'node:util';
import {
  brotliCompress,
  brotliDecompressSync,
  constants,
  crc32,
  deflateRawSync,
  inflateRawSync,
} from 'node:zlib';
import { CtxloomError } from '../../core/errors.ts';
import { CheckpointVersionError } from './checkpoint-version-error.ts';

/**
 * How stored records are compressed. `deflate` (default) uses raw DEFLATE (level 9), against a
 * preset dictionary; a large self-contained record (a snapshot's row) uses Brotli instead.
 */
export type RecordCompression = 'deflate' | 'none';

/**
 * Version 3: a chained checkpoint record may store its header as a patch of its parent's and
 * a writes record may store a task's node and trigger instead of its id; a reader of version
 * 2 must refuse these rather than misread them. Version 2 records are still read.
 */
const FORMAT_VERSION = 3;
/**
 * Version 4: the body is Brotli-compressed ({@link FLAG_BROTLI}). Only such records carry it,
 * so every other record stays readable by version-3 readers; those refuse a version-4 record
 * by its number instead of misreading it.
 */
const BROTLI_FORMAT_VERSION = 4;
/**
 * Version 5: a chained record deflated against its path's history — the last 32 KiB of the
 * bodies before it along its chain (see `chain-text.ts`, {@link DictionaryKind}); versions 2
 * and 3 were deflated against two windows (recent values, recent headers). The DEFLATE stream
 * is sync-flushed and its closing empty stored block (`00 00 FF FF`) left out, and the CRC is
 * the body's: the records of a path, concatenated, are one DEFLATE stream, inflated in one
 * call and each checked on its own ({@link chainedPiece}). Only chained records carry it;
 * version-3 readers refuse it by its number.
 */
const HISTORY_FORMAT_VERSION = 5;
const READABLE_VERSIONS = new Set([2, 3, 4, 5]);
/**
 * The newest record format this ctxloom writes and reads. A database records the newest
 * format any process opened it with (`checkpoint-schema.ts`), so a process older than its data
 * refuses it at start-up instead of at its first unreadable row. Raise it with every new format.
 */
export const RECORD_FORMAT_VERSION = HISTORY_FORMAT_VERSION;
const FLAG_DEFLATE = 1;
const FLAG_CHAINED = 2;
const FLAG_COUNT = 4;
const FLAG_BROTLI = 8;
/**
 * Bodies from this size up, stored without a chain, are compressed with Brotli: a snapshot's
 * row (hundreds of KB of messages) comes out ~25 % smaller than with DEFLATE, which sees only
 * the last 32 KiB (a timeline entry quoting a reply lies a whole message list away). Smaller
 * bodies gain little and lose the preset dictionary. Decision record 038.
 */
const BROTLI_MIN_BYTES = 16 * 1024;
/**
 * Quality 10 of 11, on the thread pool: a 471 KB snapshot difference in 78.5–81.3 KB and
 * 213–243 ms of CPU, where 9 takes 85.0–87.9 KB and 33–44 ms, 11 76.4–78.9 KB and 738–947 ms —
 * once per few hundred turns (`bench/checkpoint/codec-experiment.ts`, decision 039).
 */
const BROTLI_QUALITY = 10;
/**
 * Bodies above this size are compressed at quality 5 with a 16 MiB window instead: quality 10's
 * time grows faster than the body (a long process session's call-log snapshot, 200 call records
 * of ~100 KB each, is ~20 MB: 3.3 s of CPU at quality 10, which its turn waits for). On that
 * snapshot quality 5 takes 0.17–0.26 s where 9 takes 0.56–0.88 s, for 17 % more bytes (427–499
 * KB against 366–426; 16 MiB of window because the records repeat further apart than the default
 * 4 MiB) — the knee: quality 4 stores 33 % more. Up to 1 MiB quality 10 takes ≤ ~250 ms and
 * stores ~3 % less than 9. Decision record 084 and its amendment.
 */
const BROTLI_QUALITY_10_MAX_BYTES = 1024 * 1024;
/** Quality and window (log2 bytes) of bodies above {@link BROTLI_QUALITY_10_MAX_BYTES}. */
const LARGE_BODY = { quality: 5, lgwin: 24 } as const;
const brotliCompressAsync = promisify(brotliCompress);
/**
 * DEFLATE at its highest effort: 1.4 % fewer bytes than level 6 for ~11 µs more CPU a record
 * (the dynamic process's chained records, `bench/checkpoint/codec-experiment.ts`; decision
 * 039). Reading is the same.
 */
const DEFLATE_EFFORT = { level: constants.Z_BEST_COMPRESSION, memLevel: 9 } as const;
/** Zlib keeps a 32 KiB window; a longer dictionary only wastes time. */
const MAX_DICTIONARY_BYTES = 32 * 1024;

/**
 * Text every LangGraph checkpoint record repeats: DEFLATE's preset dictionary, so a
 * 300-byte record does not pay to spell these out. Changing it changes the stored format:
 * bump {@link FORMAT_VERSION}.
 */
export const STATIC_DICTIONARY = Buffer.from(
  [
    '{"h":{"checkpoint":{"v":4,"id":"1f1e6291-","ts":"2026-01-01T00:00:00.000Z","channel_versions":{"__start__":',
    '"messages":"branch:to:","turns":},"versions_seen":{"__input__":{},"__start__":{"__start__":}},',
    '"metadataType":"json","values":[["json"]],"located":{"":""}},"l":[]}',
    '{"source":"loop","step":,"parents":{},"delta_writes_versioned":true,"counters_since_delta_snapshot":{"messages":[,]}}',
    '{"source":"input","step":-1,',
    '{"h":{"t":[["","~__pregel_pull, __start__"]],"w":[[0,0,"messages","json"],[0,1,"branch:to:","json"]]},"l":[]}',
    '"mapreduce_results","__pregel_tasks","__error__","__interrupt__","__resume__","__scheduled__"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","RemoveMessage"],"kwargs":{"id":"__remove_all__"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"tool_call_id":"","status":"success",',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"',
    '","tool_calls":[],"invalid_tool_calls":[],"additional_kwargs":{},"response_metadata":{},"id":"',
  ].join(''),
);

/**
 * A stored record: a JSON header plus opaque byte payloads (serialised channel values).
 * Layout: `[version u8][flags u8]`, then when chained a CRC-32 (u32 LE: of the body in format
 * 5, of the dictionary in formats 2–3), then when counted an unsigned LEB128 count, then the
 * (optionally compressed) body `[header length u32 LE][header JSON][payload 0][payload 1]…`;
 * payload lengths live in the header. A chained record is deflated against a dictionary its
 * reader rebuilds from earlier records of the same chain (see `chain-text.ts`), so it costs
 * only what is new; the count travels outside the deflated body because the dictionary
 * depends on it.
 */
export interface DecodedRecord<H> {
  header: H;
  /** The header's JSON bytes. */
  headerBytes: Uint8Array;
  /** The whole decoded body (header JSON and payloads): this record's part of later dictionaries. */
  body: Uint8Array;
  payloads: Uint8Array[];
}

/** Options of {@link encodeRecord}. */
export interface EncodeRecordOptions<H> {
  header: H;
  payloads: readonly Uint8Array[];
  compression: RecordCompression;
  /** Text this record is deflated against (after the static dictionary); omit for a self-contained record. */
  dictionary?: Uint8Array;
  /** A small unsigned integer stored uncompressed (read with {@link recordCount}). */
  count?: number;
}

/** Encodes a header and payloads into one byte string. */
export async function encodeRecord<H>(options: EncodeRecordOptions<H>): Promise<Uint8Array> {
  return (await encodeRecordWithBody(options)).bytes;
}

/** {@link encodeRecord}, also returning the record as {@link decodeRecord} would (without inflating it). */
export async function encodeRecordWithBody<H>(options: EncodeRecordOptions<H>): Promise<{
  bytes: Uint8Array;
  decoded: DecodedRecord<H>;
}> {
  const body = recordBody(options.header, options.payloads);
  const total = body.byteLength;
  let flags = 0;
  let stored: Uint8Array = body;
  if (options.compression === 'deflate' && options.dictionary === undefined && total >= BROTLI_MIN_BYTES) {
    // On libuv's thread pool: a long thread's snapshot keeps Brotli busy for hundreds of
    // milliseconds, and the event loop goes on serving other threads meanwhile.
    const large = total > BROTLI_QUALITY_10_MAX_BYTES;
    const compressed = await brotliCompressAsync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: large ? LARGE_BODY.quality : BROTLI_QUALITY,
        [constants.BROTLI_PARAM_LGWIN]: large ? LARGE_BODY.lgwin : 22,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: total,
      },
    });
    if (compressed.byteLength < total) {
      stored = compressed;
      flags |= FLAG_BROTLI;
    }
  } else if (options.compression === 'deflate' && options.dictionary !== undefined) {
    const deflated = deflateRawSync(body, {
      dictionary: dictionaryFor(options.dictionary),
      finishFlush: constants.Z_SYNC_FLUSH,
      ...DEFLATE_EFFORT,
    });
    if (!deflated.subarray(-SYNC_TAIL.byteLength).equals(SYNC_TAIL))
      throw new Error('a sync-flushed DEFLATE stream did not end with an empty stored block');
    if (deflated.byteLength - SYNC_TAIL.byteLength < total) {
      stored = deflated.subarray(0, deflated.byteLength - SYNC_TAIL.byteLength);
      flags |= FLAG_DEFLATE | FLAG_CHAINED;
    }
  } else if (options.compression === 'deflate') {
    const deflated = deflateRawSync(body, { dictionary: dictionaryFor(undefined), ...DEFLATE_EFFORT });
    if (deflated.byteLength < total) {
      stored = deflated;
      flags |= FLAG_DEFLATE;
    }
  }
  const count = options.count === undefined ? [] : leb128(options.count);
  if (options.count !== undefined) flags |= FLAG_COUNT;
  // A chained record carries its body's CRC-32, so a changed chain (the body then inflates to
  // other bytes) is an error on read instead of silently wrong bytes.
  const prefix = 2 + (flags & FLAG_CHAINED ? 4 : 0) + count.length;
  const out = Buffer.allocUnsafe(prefix + stored.byteLength);
  out[0] =
    flags & FLAG_BROTLI
      ? BROTLI_FORMAT_VERSION
      : flags & FLAG_CHAINED
        ? HISTORY_FORMAT_VERSION
        : FORMAT_VERSION;
  out[1] = flags;
  if (flags & FLAG_CHAINED) out.writeUInt32LE(crc32(body), 2);
  out.set(count, prefix - count.length);
  out.set(stored, prefix);
  return { bytes: out, decoded: parseBodyAt<H>(body, 0).decoded };
}

/** The uncompressed body of a record: `[header length u32 LE][header JSON][payload 0][payload 1]…`. */
export function recordBody(header: unknown, payloads: readonly Uint8Array[]): Buffer {
  const headerBytes = Buffer.from(
    JSON.stringify({ h: header, l: payloads.map((payload) => payload.byteLength) }),
  );
  const total = 4 + headerBytes.byteLength + payloads.reduce((sum, p) => sum + p.byteLength, 0);
  const body = Buffer.allocUnsafe(total);
  body.writeUInt32LE(headerBytes.byteLength, 0);
  headerBytes.copy(body, 4);
  let offset = 4 + headerBytes.byteLength;
  for (const payload of payloads) {
    body.set(payload, offset);
    offset += payload.byteLength;
  }
  return body;
}

/** True when the record was deflated against a chain dictionary and needs it to decode. */
export function isChained(bytes: Uint8Array): boolean {
  return ((bytes[1] ?? 0) & FLAG_CHAINED) !== 0;
}

/**
 * Which chain dictionary a chained record was deflated against: `history` (format 5, what
 * {@link encodeRecord} writes) or `windows` (formats 2 and 3, still read).
 */
export type DictionaryKind = 'history' | 'windows';

/** The {@link DictionaryKind} of a chained record. */
export function dictionaryKind(bytes: Uint8Array): DictionaryKind {
  return bytes[0] === HISTORY_FORMAT_VERSION ? 'history' : 'windows';
}

/** The count stored with {@link encodeRecord}'s `count` option (0 when none). */
export function recordCount(bytes: Uint8Array): number {
  return readCount(bytes).count;
}

/**
 * Decodes what {@link encodeRecord} wrote. `dictionary` is required when {@link isChained}.
 * Anything that does not decode — an unknown format, a changed chain, bytes zlib or Brotli
 * refuse, a body that does not parse — is a `storage-error`.
 */
export function decodeRecord<H>(bytes: Uint8Array, dictionary?: Uint8Array): DecodedRecord<H> {
  if (!READABLE_VERSIONS.has(bytes[0] ?? 0)) {
    if ((bytes[0] ?? 0) > RECORD_FORMAT_VERSION) {
      throw new CheckpointVersionError({
        kind: 'record-format',
        stored: bytes[0] ?? 0,
        supported: RECORD_FORMAT_VERSION,
        where: 'a checkpoint record',
      });
    }
    throw storageError(`unknown checkpoint record format ${bytes[0]}`);
  }
  const flags = bytes[1] ?? 0;
  if (
    (bytes[0] === BROTLI_FORMAT_VERSION) !== ((flags & FLAG_BROTLI) !== 0) ||
    (bytes[0] === HISTORY_FORMAT_VERSION && (flags & FLAG_CHAINED) === 0)
  )
    throw storageError(`checkpoint record format ${bytes[0]} with flags ${flags} is not a valid record`);
  const chained = (flags & FLAG_CHAINED) !== 0;
  if (chained && dictionary === undefined) throw storageError('record needs its chain to decode');
  const { end } = readCount(bytes);
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset + end, bytes.byteLength - end);
  const preset = dictionaryFor(chained ? dictionary : undefined);
  if (chained && bytes[0] !== HISTORY_FORMAT_VERSION && storedCrc(bytes) !== crc32(preset))
    throw chainChanged();
  let body: Buffer;
  try {
    if (chained && bytes[0] === HISTORY_FORMAT_VERSION) body = inflatePieces([raw], preset);
    else if (flags & FLAG_BROTLI) body = brotliDecompressSync(raw);
    else body = flags & FLAG_DEFLATE ? inflateRawSync(raw, inflateOptions(raw, preset)) : raw;
  } catch (error) {
    throw storageError(`checkpoint record does not decompress: ${(error as Error).message}`);
  }
  if (chained && bytes[0] === HISTORY_FORMAT_VERSION && crc32(body) !== storedCrc(bytes))
    throw chainChanged();
  const { decoded, end: bodyEnd } = parseBodyAt<H>(body, 0);
  if (bodyEnd !== body.byteLength) throw storageError('checkpoint record body has bytes after its payloads');
  return decoded;
}

function storageError(message: string): CtxloomError {
  return new CtxloomError({ code: 'storage-error', message });
}

function chainChanged(): CtxloomError {
  return storageError('record chain changed since the record was written');
}

function storedCrc(bytes: Uint8Array): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset + 2, 4).readUInt32LE(0);
}

/** The empty stored block a sync flush ends with; format 5 records store their stream without it. */
export const SYNC_TAIL = Buffer.from([0, 0, 0xff, 0xff]);

/**
 * A format-5 record as one piece of its path's DEFLATE stream: the compressed bytes (without
 * {@link SYNC_TAIL}), the CRC-32 of the body they inflate to, and the stored count; undefined
 * for any other record. Pieces of a path concatenated (each record's dictionary being the
 * bodies before it) inflate in one call; {@link decodeBodyAt} then splits and checks them.
 */
export function chainedPiece(bytes: Uint8Array): { raw: Uint8Array; crc: number; count: number } | undefined {
  if (bytes[0] !== HISTORY_FORMAT_VERSION || ((bytes[1] ?? 0) & FLAG_CHAINED) === 0) return undefined;
  const { count, end } = readCount(bytes);
  return { raw: bytes.subarray(end), crc: storedCrc(bytes), count };
}

/**
 * The record body starting at `offset` of an inflated path stream, and where it ends; throws
 * when its CRC-32 is not `crc` (a wrong history) or it does not fit.
 */
export function decodeBodyAt<H>(
  buffer: Buffer,
  offset: number,
  crc: number,
): { decoded: DecodedRecord<H>; end: number } {
  const parsed = parseBodyAt<H>(buffer, offset);
  if (crc32(parsed.decoded.body) !== crc) throw chainChanged();
  return parsed;
}

/** The record body at `offset`: its header parsed, its payloads cut; a `storage-error` when it does not fit. */
function parseBodyAt<H>(buffer: Buffer, offset: number): { decoded: DecodedRecord<H>; end: number } {
  const malformed = () => storageError('checkpoint record body is malformed');
  if (offset + 4 > buffer.byteLength) throw malformed();
  const headerEnd = offset + 4 + buffer.readUInt32LE(offset);
  if (headerEnd > buffer.byteLength) throw malformed();
  let parsed: { h: H; l: unknown };
  try {
    parsed = JSON.parse(buffer.toString('utf8', offset + 4, headerEnd)) as { h: H; l: unknown };
  } catch {
    throw malformed();
  }
  if (!Array.isArray(parsed.l)) throw malformed();
  let end = headerEnd;
  const payloads: Uint8Array[] = [];
  for (const length of parsed.l) {
    if (!Number.isSafeInteger(length) || length < 0 || end + length > buffer.byteLength) throw malformed();
    payloads.push(buffer.subarray(end, end + length));
    end += length;
  }
  const body = buffer.subarray(offset, end);
  return {
    decoded: { header: parsed.h, headerBytes: buffer.subarray(offset + 4, headerEnd), body, payloads },
    end,
  };
}

/**
 * Inflates the pieces of a path ({@link chainedPiece}`.raw`, oldest first) in one call, the
 * first deflated against `dictionary` (as built for it); undefined when zlib refuses the
 * stream (a piece whose history was not the pieces before it may not even inflate).
 */
export function inflatePath(raws: readonly Uint8Array[], dictionary: Uint8Array): Buffer | undefined {
  try {
    return inflatePieces(raws, dictionaryFor(dictionary));
  } catch {
    return undefined;
  }
}

/** Inflates format-5 pieces, concatenated, against `preset` (a whole zlib dictionary); zlib's errors pass through. */
function inflatePieces(raws: readonly Uint8Array[], preset: Uint8Array): Buffer {
  // Each piece's stream ends inside the empty stored block its sync flush began: give back its length bytes.
  const stream = Buffer.concat(raws.flatMap((raw) => [raw, SYNC_TAIL]));
  return inflateRawSync(stream, { ...inflateOptions(stream, preset), finishFlush: constants.Z_SYNC_FLUSH });
}

/** Output chunks zlib gathers for a large record: about its size, so a snapshot's body is not stitched from 16 KiB pieces. */
function inflateOptions(
  raw: Uint8Array,
  dictionary: Uint8Array,
): { dictionary: Uint8Array; chunkSize?: number } {
  return raw.byteLength < 8 * 1024
    ? { dictionary }
    : { dictionary, chunkSize: Math.min(raw.byteLength * 4, 8 * 1024 * 1024) };
}

function readCount(bytes: Uint8Array): { count: number; end: number } {
  const flags = bytes[1] ?? 0;
  let end = 2 + (flags & FLAG_CHAINED ? 4 : 0);
  if ((flags & FLAG_COUNT) === 0) return { count: 0, end };
  let count = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[end] ?? 0;
    end += 1;
    count += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0 || end >= bytes.byteLength) return { count, end };
  }
}

function leb128(value: number): number[] {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`count ${value} is not a safe unsigned integer`);
  const out: number[] = [];
  let rest = value;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    out.push(rest > 0 ? low | 0x80 : low);
  } while (rest > 0);
  return out;
}

/**
 * Dictionaries that already start with {@link STATIC_DICTIONARY} (built by `dictionaryOf`).
 * The views are marked, not their memory: the buffer `dictionaryOf` writes into may lie inside
 * Buffer's pool at an offset (it does under vitest), and a check that missed it in one process
 * only would prefix the static dictionary twice there — another chain, a CRC error.
 */
const prefixed = new WeakSet<Uint8Array>();

/** Marks a dictionary built as the static dictionary followed by a chain's text (no second copy). */
export function withStaticPrefix(dictionary: Uint8Array): Uint8Array {
  prefixed.add(dictionary);
  return dictionary;
}

function dictionaryFor(dictionary: Uint8Array | undefined): Uint8Array {
  if (dictionary === undefined) return STATIC_DICTIONARY;
  const combined = prefixed.has(dictionary) ? dictionary : Buffer.concat([STATIC_DICTIONARY, dictionary]);
  return combined.byteLength > MAX_DICTIONARY_BYTES
    ? combined.subarray(combined.byteLength - MAX_DICTIONARY_BYTES)
    : combined;
}
