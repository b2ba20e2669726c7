import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake provider answers one request. */
export type FakeReply = 'ok' | '429' | '500' | 'bad-json' | 'hang';

/**
 * A real HTTP server that speaks the OpenAI chat-completions protocol (streamed, as the AI
 * SDK's `@ai-sdk/openai-compatible` calls it; a request that does not stream gets the same answer
 * whole) and fails on request: each request takes the
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
      const body = JSON.parse(raw);
      bodies.push(body);
      const reply = replies[Math.min(index++, replies.length - 1)] ?? 'ok';
      if (reply === 'ok' && body.stream !== true) {
        answerWhole(response);
        return;
      }
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

/** The same answer as one JSON completion, for a request that does not stream (`generateText`). */
function answerWhole(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'fake',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'A term is a logical clock.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 6, total_tokens: 7 },
    }),
  );
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
