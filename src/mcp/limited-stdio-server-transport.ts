import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * Largest JSON-RPC message `ctxloom mcp` reads from stdin: 32 MiB. Above the sandbox's write
 * limit (8 MiB), so an oversized `write_file` reaches the tool and is refused there.
 */
export const MAX_MCP_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Bytes of an oversized message's start and end kept to find its request id. */
const EDGE_BYTES = 256;
/** JSON-RPC "Invalid Request". */
const INVALID_REQUEST = -32600;

/** Options of {@link LimitedStdioServerTransport}. */
export interface LimitedStdioServerTransportOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Largest message in bytes (1 KiB..1 GiB). Default {@link MAX_MCP_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
}

/**
 * An MCP stdio server transport (newline-delimited JSON-RPC, as the SDK's
 * `StdioServerTransport`) that survives a message over its size limit. The SDK's transport
 * closes the connection when its 10 MiB read buffer overflows (so `ctxloom mcp` exited on a
 * 12 MB `write_file`); this one skips the oversized line without buffering it, answers the
 * request with JSON-RPC error -32600 whose `data` is `{ code: 'too-large', limitBytes,
 * bytes }`, and reads on.
 */
export class LimitedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  #size = 0;
  /** Set while skipping an oversized line: its first bytes and its last ones. */
  #skipped: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(options: LimitedStdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#maxBytes = Math.min(2 ** 30, Math.max(1024, options.maxMessageBytes ?? MAX_MCP_MESSAGE_BYTES));
  }

  async start(): Promise<void> {
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const json = serializeMessage(message);
    if (!this.#stdout.write(json)) await new Promise((done) => this.#stdout.once('drain', done));
  }

  async close(): Promise<void> {
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#parts = [];
    this.#size = 0;
    this.#skipped = undefined;
    this.onclose?.();
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (data: Buffer | string) => {
    let chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10)) {
      this.#add(chunk.subarray(0, end));
      this.#endLine();
      chunk = chunk.subarray(end + 1);
    }
    this.#add(chunk);
  };

  #add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#skipped !== undefined) {
      this.#skipped.bytes += piece.length;
      this.#skipped.tail = lastBytes(Buffer.concat([this.#skipped.tail, piece]));
      return;
    }
    this.#parts.push(piece);
    this.#size += piece.length;
    if (this.#size > this.#maxBytes) {
      // Over the limit: keep the edges only (where the request id is), not the body.
      const whole = Buffer.concat(this.#parts);
      this.#skipped = { head: whole.subarray(0, EDGE_BYTES), tail: lastBytes(whole), bytes: whole.length };
      this.#parts = [];
      this.#size = 0;
    }
  }

  #endLine(): void {
    const skipped = this.#skipped;
    if (skipped !== undefined) {
      this.#skipped = undefined;
      this.#refuse(skipped);
      return;
    }
    const line = Buffer.concat(this.#parts).toString('utf8').replace(/\r$/u, '');
    this.#parts = [];
    this.#size = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  #refuse(skipped: { head: Buffer; tail: Buffer; bytes: number }): void {
    const message = `the MCP message is ${skipped.bytes} bytes, over the limit of ${this.#maxBytes} bytes (MAX_MCP_MESSAGE_BYTES); it was not read`;
    const id = requestIdOf(skipped.head.toString('utf8'), skipped.tail.toString('utf8'));
    if (id === undefined) {
      this.onerror?.(new Error(message));
      return;
    }
    void this.send({
      jsonrpc: '2.0',
      id,
      error: {
        code: INVALID_REQUEST,
        message,
        data: { code: 'too-large', limitBytes: this.#maxBytes, bytes: skipped.bytes },
      },
    }).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= EDGE_BYTES ? buffer : Buffer.from(buffer.subarray(buffer.length - EDGE_BYTES));
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"jsonrpc":"2.0","id":…` (most clients) or `…,"jsonrpc":"2.0","id":7}` (the TypeScript SDK). */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`, 'u');
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`, 'u');

/** The id of a request whose body was not read, from its first and last bytes. */
function requestIdOf(head: string, tail: string): RequestId | undefined {
  const found = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail)?.[1];
  if (found === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(found);
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
