/** Result of one chat request under load. */
export interface ChatSample {
  /** Milliseconds from sending the request to the response headers. */
  headersMs: number;
  /** Milliseconds from sending the request to the first event of the stream (first body byte). */
  ttfbMs: number;
  /** Milliseconds until the `data-context-report` chunk (compile done, user message stored). */
  reportMs: number;
  /** Milliseconds until the stream ended. */
  totalMs: number;
  /** The question's message id (sent by the client). */
  questionId: string;
  /** The answer's message id (the last `start` chunk's `messageId`), when the stream carried one. */
  answerId?: string;
  /** True when the turn was acknowledged: status 200 and a `finish` chunk, no `error` chunk. */
  acknowledged: boolean;
  /** Set when the status was not 200 or the stream carried an error chunk. */
  error?: string;
}

/** Sends one chat message and reads the UI message stream to the end. */
export async function sendChat(options: {
  url: string;
  /** The server's API token (sent as a bearer header). */
  token?: string;
  sessionId: string;
  text: string;
  id: string;
}): Promise<ChatSample> {
  const started = performance.now();
  const since = () => performance.now() - started;
  let headersMs: number | undefined;
  const failed = (error: string, answerId?: string): ChatSample => {
    const elapsed = since();
    return {
      headersMs: headersMs ?? elapsed,
      ttfbMs: elapsed,
      reportMs: elapsed,
      totalMs: elapsed,
      questionId: options.id,
      ...(answerId === undefined ? {} : { answerId }),
      acknowledged: false,
      error,
    };
  };
  try {
    const response = await fetch(`${options.url}/api/sessions/${options.sessionId}/chat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` }),
      },
      body: JSON.stringify({
        id: options.sessionId,
        trigger: 'submit-message',
        messages: [{ id: options.id, role: 'user', parts: [{ type: 'text', text: options.text }] }],
      }),
    });
    headersMs = since();
    const reader = response.body?.getReader();
    if (reader === undefined) return failed('no body');
    const decoder = new TextDecoder();
    let first: number | undefined;
    let report: number | undefined;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      first ??= since();
      text += decoder.decode(value, { stream: true });
      if (report === undefined && text.includes('"data-context-report"')) report = since();
    }
    const totalMs = since();
    const timing = { headersMs, ttfbMs: first ?? totalMs, reportMs: report ?? totalMs, totalMs };
    const chunks = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; messageId?: string });
    // The last `start` names the answer (a queued chat's first `start` carries a provisional id
    // that the AI SDK's reader replaces, as `useChat` does).
    const answerId = chunks.findLast((chunk) => chunk.type === 'start' && chunk.messageId)?.messageId;
    const base = { ...timing, questionId: options.id, ...(answerId === undefined ? {} : { answerId }) };
    if (response.status !== 200)
      return { ...base, acknowledged: false, error: `HTTP ${response.status}: ${text.slice(0, 200)}` };
    const errorAt = text.indexOf('"type":"error"');
    if (errorAt >= 0) return { ...base, acknowledged: false, error: text.slice(errorAt, errorAt + 300) };
    if (chunks.at(-1)?.type !== 'finish')
      return { ...base, acknowledged: false, error: 'stream ended without finish' };
    return { ...base, acknowledged: true };
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
}

/** Runs `total` tasks with at most `concurrency` in flight; results in task order. */
export async function runBounded<T>(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}

/** The q-quantile (0..1) of `values`, nearest-rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
