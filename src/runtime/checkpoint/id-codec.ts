const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TEXT_MARKER = 0xff;

/**
 * Stores a checkpoint or task id in as few bytes as possible: a lowercase UUID (what
 * LangGraph generates) becomes its 16 bytes; any other id becomes `0xff` + UTF-8, or
 * `0xff 0xff` + UTF-8 when that would be 16 bytes long — so a length of 16 always means a
 * UUID (UTF-8 never contains `0xff`). Byte order equals string order among UUIDs, so
 * `ORDER BY` and `<` keep LangGraph's "newest id last" meaning.
 */
export function encodeId(id: string): Uint8Array {
  if (UUID.test(id)) return Buffer.from(id.replaceAll('-', ''), 'hex');
  const text = Buffer.from(id, 'utf8');
  const markers = text.byteLength + 1 === 16 ? 2 : 1;
  const out = Buffer.alloc(text.byteLength + markers, TEXT_MARKER);
  text.copy(out, markers);
  return out;
}

/** Reverses {@link encodeId}. */
export function decodeId(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.byteLength === 16) {
    const hex = buffer.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return buffer.toString('utf8', buffer[1] === TEXT_MARKER ? 2 : 1);
}
