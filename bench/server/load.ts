/** Result of one chat request under load. */
export interface ChatSample {
  /** Milliseconds from sending the request to the first body byte. */
  ttfbMs: number;
  /** Milliseconds until the `data-context-report` chunk (compile done, user message stored). */
  reportMs: number;
  /** Milliseconds until the stream ended. */
  totalMs: number;
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
    const reader = response.body?.getReader();
    if (reader === undefined)
      return { ttfbMs: performance.now() - started, reportMs: 0, totalMs: 0, error: 'no body' };
    const decoder = new TextDecoder();
    let first: number | undefined;
    let report: number | undefined;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      first ??= performance.now();
      text += decoder.decode(value, { stream: true });
      if (report === undefined && text.includes('"data-context-report"')) report = performance.now();
    }
    const reportMs = (report ?? performance.now()) - started;
    const ttfbMs = (first ?? performance.now()) - started;
    const totalMs = performance.now() - started;
    if (response.status !== 200)
      return { ttfbMs, reportMs, totalMs, error: `HTTP ${response.status}: ${text.slice(0, 200)}` };
    if (text.includes('"type":"error"'))
      return { ttfbMs, reportMs, totalMs, error: text.slice(text.indexOf('"type":"error"'), 300) };
    if (!text.includes('"type":"finish"'))
      return { ttfbMs, reportMs, totalMs, error: 'stream ended without finish' };
    return { ttfbMs, reportMs, totalMs };
  } catch (error) {
    const elapsed = performance.now() - started;
    return {
      ttfbMs: elapsed,
      reportMs: elapsed,
      totalMs: elapsed,
      error: error instanceof Error ? error.message : String(error),
    };
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
