const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TEXT_MARKER = 0xff;

/**
 * Stores a checkpoint or task id in as few bytes as possible: a lowercase UUID (what
 * LangGraph generates) becomes its 16 bytes, anything else `0xff` + UTF-8. Byte order
 * equals string order among UUIDs, so `ORDER BY` and `<` on the column keep LangGraph's
 * "newest id last" meaning; other ids sort after every UUID.
 */
export function encodeId(id: string): Uint8Array {
  if (UUID.test(id)) return Buffer.from(id.replaceAll('-', ''), 'hex');
  const text = Buffer.from(id, 'utf8');
  const out = Buffer.allocUnsafe(text.byteLength + 1);
  out[0] = TEXT_MARKER;
  text.copy(out, 1);
  return out;
}

/** Reverses {@link encodeId}. */
export function decodeId(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.byteLength === 16 && buffer[0] !== TEXT_MARKER) {
    const hex = buffer.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return buffer.toString('utf8', 1);
}
