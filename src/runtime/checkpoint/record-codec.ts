import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

/** How stored records are compressed. `deflate` (default) uses raw DEFLATE level 6. */
export type RecordCompression = 'deflate' | 'none';

const FORMAT_VERSION = 1;
const FLAG_DEFLATE = 1;
const FLAG_BASE_DICTIONARY = 2;
/** Zlib keeps a 32 KiB window; a longer dictionary only wastes time. */
const MAX_DICTIONARY_BYTES = 32 * 1024;

/**
 * Text every LangGraph checkpoint record repeats: DEFLATE's preset dictionary, so a
 * 300-byte record does not pay to spell these out. Changing it changes the stored format:
 * bump {@link FORMAT_VERSION}.
 */
const STATIC_DICTIONARY = Buffer.from(
  [
    '{"h":{"checkpoint":{"v":4,"id":"1f1e6291-","ts":"2026-01-01T00:00:00.000Z","channel_versions":{"__start__":',
    '"messages":"branch:to:","turns":},"versions_seen":{"__input__":{},"__start__":{"__start__":}},',
    '"metadataType":"json","values":[["json"]],"located":{}},"l":[]}',
    '{"source":"loop","step":,"parents":{},"delta_writes_versioned":true,"counters_since_delta_snapshot":{"messages":[,]}}',
    '{"source":"input","step":-1,',
    '{"h":{"taskPath":"~__pregel_pull, __start__","writes":[[0,"messages","json"],[1,"branch:to:","json"]]},"l":[]}',
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
 * Layout: `[version u8][flags u8]` then the (optionally deflated) body
 * `[header length u32 LE][header JSON][payload 0][payload 1]…`; payload lengths live in
 * the header. A record may be deflated against a *base* record's header (flag 2): the
 * base is an earlier checkpoint of the same thread, so only what changed costs bytes.
 */
export interface DecodedRecord<H> {
  header: H;
  /** The header's JSON bytes, usable as the base dictionary of later records. */
  headerBytes: Uint8Array;
  payloads: Uint8Array[];
}

/** Encodes a header and payloads into one byte string. */
export function encodeRecord<H>(options: {
  header: H;
  payloads: readonly Uint8Array[];
  compression: RecordCompression;
  /** Header bytes of the base record; omit for a self-contained record. */
  base?: Uint8Array;
}): Uint8Array {
  const headerBytes = Buffer.from(
    JSON.stringify({ h: options.header, l: options.payloads.map((payload) => payload.byteLength) }),
  );
  const total = 4 + headerBytes.byteLength + options.payloads.reduce((sum, p) => sum + p.byteLength, 0);
  const body = Buffer.allocUnsafe(total);
  body.writeUInt32LE(headerBytes.byteLength, 0);
  headerBytes.copy(body, 4);
  let offset = 4 + headerBytes.byteLength;
  for (const payload of options.payloads) {
    body.set(payload, offset);
    offset += payload.byteLength;
  }
  let flags = 0;
  let stored: Uint8Array = body;
  if (options.compression === 'deflate') {
    const deflated = deflateRawSync(body, { dictionary: dictionaryFor(options.base) });
    if (deflated.byteLength < total) {
      stored = deflated;
      flags |= FLAG_DEFLATE;
      if (options.base !== undefined) flags |= FLAG_BASE_DICTIONARY;
    }
  }
  // A record deflated against a base carries the base's CRC-32, so a changed base is an
  // error on read instead of silently wrong bytes.
  const prefix = flags & FLAG_BASE_DICTIONARY ? 6 : 2;
  const out = Buffer.allocUnsafe(prefix + stored.byteLength);
  out[0] = FORMAT_VERSION;
  out[1] = flags;
  if (options.base !== undefined && prefix === 6) out.writeUInt32LE(crc32(options.base), 2);
  out.set(stored, prefix);
  return out;
}

/** True when the record was deflated against a base record and needs its header to decode. */
export function needsBase(bytes: Uint8Array): boolean {
  return ((bytes[1] ?? 0) & FLAG_BASE_DICTIONARY) !== 0;
}

/** Decodes what {@link encodeRecord} wrote. `base` is required when {@link needsBase}. */
export function decodeRecord<H>(bytes: Uint8Array, base?: Uint8Array): DecodedRecord<H> {
  if (bytes[0] !== FORMAT_VERSION) throw new Error(`unknown checkpoint record format ${bytes[0]}`);
  const flags = bytes[1] ?? 0;
  const withBase = (flags & FLAG_BASE_DICTIONARY) !== 0;
  if (withBase && base === undefined) throw new Error('record needs its base to decode');
  const prefix = withBase ? 6 : 2;
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset + prefix, bytes.byteLength - prefix);
  if (withBase && base !== undefined) {
    const expected = Buffer.from(bytes.buffer, bytes.byteOffset + 2, 4).readUInt32LE(0);
    if (expected !== crc32(base)) throw new Error('record base changed since the record was written');
  }
  const body =
    flags & FLAG_DEFLATE
      ? inflateRawSync(raw, { dictionary: dictionaryFor(flags & FLAG_BASE_DICTIONARY ? base : undefined) })
      : raw;
  const headerLength = body.readUInt32LE(0);
  const headerBytes = body.subarray(4, 4 + headerLength);
  const parsed = JSON.parse(headerBytes.toString('utf8')) as { h: H; l: number[] };
  const payloads: Uint8Array[] = [];
  let offset = 4 + headerLength;
  for (const length of parsed.l) {
    payloads.push(body.subarray(offset, offset + length));
    offset += length;
  }
  return { header: parsed.h, headerBytes, payloads };
}

function dictionaryFor(base: Uint8Array | undefined): Buffer {
  if (base === undefined) return STATIC_DICTIONARY;
  const combined = Buffer.concat([STATIC_DICTIONARY, base]);
  return combined.byteLength > MAX_DICTIONARY_BYTES
    ? combined.subarray(combined.byteLength - MAX_DICTIONARY_BYTES)
    : combined;
}
