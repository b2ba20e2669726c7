import type { MemorySaver } from '@langchain/langgraph';

/** Serialised bytes MemorySaver holds: every stored checkpoint, metadata and write. */
export function memorySaverBytes(saver: MemorySaver): number {
  let bytes = 0;
  for (const namespaces of Object.values(saver.storage)) {
    for (const checkpoints of Object.values(namespaces)) {
      for (const [checkpoint, metadata] of Object.values(checkpoints))
        bytes += checkpoint.byteLength + metadata.byteLength;
    }
  }
  for (const writes of Object.values(saver.writes)) {
    for (const [, , value] of Object.values(writes)) bytes += value.byteLength;
  }
  return bytes;
}
