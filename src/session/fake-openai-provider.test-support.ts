import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake provider answers one request. */
export type FakeReply = 'ok' | '429' | '500' | 'bad-json' | 'hang';

/**
 * A real HTTP server that speaks the OpenAI chat-completions protocol (streamed, as the AI
 * SDK's `@ai-sdk/openai-compatible` calls it) and fails on request: each request takes the
 * next reply of `replies` (the last one repeats). Every request body is kept, parsed.
 */
export async function startFakeOpenAiProvider(replies: FakeReply[]) {
  const bodies: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
  const hanging = new Set<ServerResponse>();
  let index = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      raw += chunk;
    });
    request.on('end', () => {
      bodies.push(JSON.parse(raw));
      const reply = replies[Math.min(index++, replies.length - 1)] ?? 'ok';
      answer(reply, response, hanging);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    /** The parsed body of every request received, in order. */
    bodies,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function answer(reply: FakeReply, response: ServerResponse, hanging: Set<ServerResponse>): void {
  if (reply === 'hang') {
    hanging.add(response);
    return;
  }
  if (reply === '429' || reply === '500') {
    const status = Number(reply);
    // `retry-after-ms` keeps the SDK's retries of a 429 quick.
    response.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '1' });
    response.end(
      JSON.stringify({
        error: {
          message: status === 429 ? 'Rate limit reached for requests' : 'The server had an error',
          type: status === 429 ? 'rate_limit_exceeded' : 'server_error',
        },
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  if (reply === 'bad-json') {
    response.end('data: {"id":"c1","choices":[{"delta":{"content":"Hel\n\ndata: [DONE]\n\n');
    return;
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'fake',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  response.end(
    chunk({ role: 'assistant', content: 'A term is ' }) +
      chunk({ content: 'a logical clock.' }) +
      chunk({}, 'stop') +
      'data: [DONE]\n\n',
  );
}
