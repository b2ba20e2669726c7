import { EventSourceParserStream } from 'eventsource-parser/stream';
import type {
  BadReference,
  BlocksResponse,
  CallDiffResponse,
  CallResponse,
  ChangeEvent,
  CompressResponse,
  FileEntry,
  FileListResponse,
  FileWriteResponse,
  PreviewResponse,
  SearchResponse,
  SessionListResponse,
  SessionRecord,
  SessionResponse,
} from '../../src/server/api-types.ts';
import type { ContextReportData, NotebookUIMessage } from '../../src/stream/index.ts';

export type {
  BadReference,
  BlockNode,
  CallDiffResponse,
  CallHeader,
  CallResponse,
  ChangeEvent,
  FileEntry,
  ModelInfo,
  PreviewResponse,
  SearchResponse,
  SessionRecord,
} from '../../src/server/api-types.ts';
export type { ContextReportData, NotebookUIMessage };

/** An error the API answered with (`{ error: { code, message, path?, file? } }`). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly path: string | undefined;
  /** `invalid-reference`: every bad reference, with why. */
  readonly references: BadReference[] | undefined;
  /** The file that is wrong, also when `path` names a place in it (a JSON path). */
  readonly file: string | undefined;
  constructor(
    status: number,
    code: string,
    message: string,
    path?: string,
    references?: BadReference[],
    file?: string,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.path = path;
    this.references = references;
    this.file = file;
  }
}

/** A failed chat request, read from the server's JSON error body when there is one. */
export interface ChatError {
  message: string;
  code: string | undefined;
  /** `invalid-reference`: every bad reference of the message. */
  references: BadReference[] | undefined;
}

/**
 * What a chat request's error says. `DefaultChatTransport` puts the response body of a refused
 * request in the error's message; this reads the server's `{ error: { code, message,
 * references? } }` from it, or keeps the text as it is.
 */
export function chatErrorOf(error: Error): ChatError {
  try {
    const body = JSON.parse(error.message) as {
      error?: { code?: unknown; message?: unknown; references?: unknown };
    };
    const { code, message, references } = body.error ?? {};
    if (typeof message === 'string') {
      return {
        message,
        code: typeof code === 'string' ? code : undefined,
        references:
          code === 'invalid-reference' && Array.isArray(references)
            ? (references as BadReference[])
            : undefined,
      };
    }
  } catch {
    // not JSON: a network error or a plain-text answer
  }
  return { message: error.message, code: undefined, references: undefined };
}

/** The bearer token (from `#token=…` once, then session storage), for non-loopback servers. */
export function authHeaders(): Record<string, string> {
  const fromHash = /(?:^#|&)token=([^&]+)/u.exec(location.hash)?.[1];
  if (fromHash !== undefined) sessionStorage.setItem('ctxloom-token', decodeURIComponent(fromHash));
  const token = sessionStorage.getItem('ctxloom-token');
  return token === null ? {} : { Authorization: `Bearer ${token}` };
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(path, { ...init, headers: { ...authHeaders(), ...(init.headers ?? {}) } });
  if (!response.ok) {
    let body: {
      error?: { code?: string; message?: string; path?: string; file?: string; references?: BadReference[] };
    } = {};
    try {
      body = await response.json();
    } catch {
      // not JSON: keep the status text
    }
    throw new ApiError(
      response.status,
      body.error?.code ?? 'http',
      body.error?.message ?? response.statusText,
      body.error?.path,
      Array.isArray(body.error?.references) ? body.error.references : undefined,
      body.error?.file,
    );
  }
  return response;
}

/** Every write is JSON (`content-type: application/json`), as the server's write guard expects. */
const json = (method: string, body: unknown, extra: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...extra },
  body: JSON.stringify(body),
});
const base = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;
const fileUrl = (id: string, path: string) =>
  `${base(id)}/files/${path.split('/').map(encodeURIComponent).join('/')}`;

/** Typed calls of every notebook route; the response types are the server's own. */
export const api = {
  chatUrl: (id: string) => `${base(id)}/chat`,
  async listSessions(): Promise<SessionListResponse> {
    return (await call('/api/sessions')).json();
  },
  async createSession(concept: string): Promise<SessionRecord> {
    return (await (await call('/api/sessions', json('POST', { concept }))).json()).session;
  },
  async renameSession(id: string, concept: string): Promise<SessionRecord> {
    return (await (await call(base(id), json('PATCH', { concept }))).json()).session;
  },
  async deleteSession(id: string): Promise<void> {
    await call(base(id), { method: 'DELETE' });
  },
  async getSession(id: string): Promise<SessionResponse> {
    return (await call(base(id))).json();
  },
  async listFiles(id: string): Promise<FileEntry[]> {
    return ((await (await call(`${base(id)}/files`)).json()) as FileListResponse).files;
  },
  async readFile(id: string, path: string): Promise<{ text: string; etag: string }> {
    const response = await call(fileUrl(id, path));
    return { text: await response.text(), etag: response.headers.get('ETag') ?? '' };
  },
  /** Writes a file: `etag` of the version read replaces it; none creates it (conflict if it exists). */
  async writeFile(id: string, path: string, text: string, etag: string | undefined): Promise<string> {
    const response = await call(fileUrl(id, path), json('PUT', { text }, etag ? { 'If-Match': etag } : {}));
    return ((await response.json()) as FileWriteResponse).etag;
  },
  async renameFile(id: string, path: string, to: string): Promise<FileWriteResponse> {
    return (await call(fileUrl(id, path), json('PATCH', { to }))).json();
  },
  async deleteFile(id: string, path: string): Promise<void> {
    await call(fileUrl(id, path), { method: 'DELETE' });
  },
  async search(id: string, query: string): Promise<SearchResponse> {
    return (await call(`${base(id)}/search?q=${encodeURIComponent(query)}`)).json();
  },
  async blocks(id: string, file?: string): Promise<BlocksResponse> {
    const query = `session=${encodeURIComponent(id)}${file === undefined ? '' : `&file=${encodeURIComponent(file)}`}`;
    return (await call(`/api/profile/blocks?${query}`)).json();
  },
  async preview(id: string, query?: string): Promise<PreviewResponse> {
    const suffix = query === undefined || query.trim() === '' ? '' : `?query=${encodeURIComponent(query)}`;
    return (await call(`${base(id)}/context-preview${suffix}`)).json();
  },
  async compress(id: string): Promise<CompressResponse> {
    return (await call(`${base(id)}/compress`, json('POST', {}))).json();
  },
  /** A logged call and every logged step of its turn (`not-found` once the log dropped it). */
  async call(id: string, callId: string): Promise<CallResponse> {
    return (await call(`${base(id)}/calls/${encodeURIComponent(callId)}`)).json();
  },
  /** What changed from the call before `callId` in the log (`previous: null` for the first kept). */
  async callDiff(id: string, callId: string): Promise<CallDiffResponse> {
    return (await call(`${base(id)}/calls/${encodeURIComponent(callId)}/diff`)).json();
  },
  async curate(id: string, targetMessageIds: string[], action: 'exclude' | 'restore'): Promise<void> {
    await call(`${base(id)}/curation`, json('POST', { targetMessageIds, action }));
  },
  /**
   * Follows `GET /events` (server-sent events, read through `fetch` so the bearer token is
   * sent): `onChange` on every change, `onOpen` on each (re)connect, `onDrop` when the stream
   * ends or cannot be opened (the server stopped, the network went). Reconnects after a drop
   * with a growing pause; returns the function that stops it.
   */
  watch(
    id: string,
    handlers: { onChange: (change: ChangeEvent) => void; onOpen?: () => void; onDrop?: () => void },
  ): () => void {
    const controller = new AbortController();
    let pauseMs = 500;
    const run = async () => {
      while (!controller.signal.aborted) {
        try {
          const response = await call(`${base(id)}/events`, { signal: controller.signal });
          const events = (response.body as ReadableStream<Uint8Array>)
            .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
            .pipeThrough(new EventSourceParserStream());
          for await (const event of events as unknown as AsyncIterable<{ event?: string; data: string }>) {
            pauseMs = 500;
            if (event.event === 'ready') handlers.onOpen?.();
            if (event.event === 'change') handlers.onChange(JSON.parse(event.data) as ChangeEvent);
          }
        } catch {
          // dropped or refused: try again below
        }
        if (controller.signal.aborted) return;
        handlers.onDrop?.();
        await new Promise((resume) => setTimeout(resume, pauseMs));
        pauseMs = Math.min(pauseMs * 2, 15_000);
      }
    };
    void run();
    return () => controller.abort();
  },
};
