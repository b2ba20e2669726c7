import type { CompileReport, Message } from '../../src/core/index.ts';
import type { ContextReportData, NotebookUIMessage, ReportedReference } from '../../src/stream/index.ts';

/** A session record as the API returns it. */
export interface SessionRecord {
  id: string;
  concept: string;
  createdAt: string;
}

/** One entry of the file list. */
export interface FileEntry {
  path: string;
  kind: 'file' | 'directory';
  size: number;
  global: boolean;
}

/** A block of a parsed file (heading tree). */
export interface BlockNode {
  id: string;
  shortId?: string;
  heading: string;
  level: number;
  content: string;
  children: BlockNode[];
  source: { file: string; startLine: number; endLine: number; sectionEndLine: number };
}

/** The model the server answers with. */
export interface ModelInfo {
  spec: string;
  offline: boolean;
  hint?: string;
}

/** `GET /context-preview`. */
export interface PreviewResponse {
  report: CompileReport;
  warnings: string[];
  references: ReportedReference[];
  contexts: Record<string, string>;
  messages: Message[];
  model: ModelInfo;
}

/** An error the API answered with (`{ error: { code, message, path? } }`). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly path: string | undefined;
  constructor(status: number, code: string, message: string, path?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.path = path;
  }
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
    let body: { error?: { code?: string; message?: string; path?: string } } = {};
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
    );
  }
  return response;
}

const json = (body: unknown, extra: Record<string, string> = {}): RequestInit => ({
  headers: { 'content-type': 'application/json', ...extra },
  body: JSON.stringify(body),
});
const base = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;
const filePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** Typed calls of every notebook route. */
export const api = {
  chatUrl: (id: string) => `${base(id)}/chat`,
  async listSessions(): Promise<{ sessions: SessionRecord[]; model: ModelInfo }> {
    return (await call('/api/sessions')).json();
  },
  async createSession(concept: string): Promise<SessionRecord> {
    return (await (await call('/api/sessions', { method: 'POST', ...json({ concept }) })).json()).session;
  },
  async renameSession(id: string, concept: string): Promise<SessionRecord> {
    return (await (await call(base(id), { method: 'PATCH', ...json({ concept }) })).json()).session;
  },
  async deleteSession(id: string): Promise<void> {
    await call(base(id), { method: 'DELETE' });
  },
  async getSession(id: string): Promise<{ session: SessionRecord; messages: NotebookUIMessage[] }> {
    return (await call(base(id))).json();
  },
  async listFiles(id: string): Promise<FileEntry[]> {
    return (await (await call(`${base(id)}/files`)).json()).files;
  },
  async readFile(id: string, path: string): Promise<{ text: string; etag: string }> {
    const response = await call(`${base(id)}/files/${filePath(path)}`);
    return { text: await response.text(), etag: response.headers.get('ETag') ?? '' };
  },
  async writeFile(id: string, path: string, text: string, etag: string | undefined): Promise<string> {
    const response = await call(`${base(id)}/files/${filePath(path)}`, {
      method: 'PUT',
      ...json({ text }, etag ? { 'If-Match': etag } : {}),
    });
    return response.headers.get('ETag') ?? '';
  },
  async blocks(id: string, file?: string): Promise<{ file: string; blocks: BlockNode[] }> {
    const query = `session=${encodeURIComponent(id)}${file === undefined ? '' : `&file=${encodeURIComponent(file)}`}`;
    return (await call(`/api/profile/blocks?${query}`)).json();
  },
  async getConfig(
    id: string,
  ): Promise<{ raw: Record<string, unknown>; etag: string; config: { profileBlocks: string[] } }> {
    return (await call(`${base(id)}/context-config`)).json();
  },
  async putConfig(id: string, raw: Record<string, unknown>, etag: string): Promise<string> {
    return (
      await (
        await call(`${base(id)}/context-config`, { method: 'PUT', ...json(raw, { 'If-Match': etag }) })
      ).json()
    ).etag;
  },
  async preview(id: string, query?: string): Promise<PreviewResponse> {
    const suffix = query === undefined || query.trim() === '' ? '' : `?query=${encodeURIComponent(query)}`;
    return (await call(`${base(id)}/context-preview${suffix}`)).json();
  },
  async compress(id: string): Promise<{ coveredMessages: number; tokens: number }> {
    return (await call(`${base(id)}/compress`, { method: 'POST', ...json({}) })).json();
  },
  async memory(id: string, targetMessageIds: string[], action: 'exclude' | 'restore'): Promise<void> {
    await call(`${base(id)}/memory`, { method: 'POST', ...json({ targetMessageIds, action }) });
  },
};

export type { ContextReportData, NotebookUIMessage };
