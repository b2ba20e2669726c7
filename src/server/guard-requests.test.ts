import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestNotebook } from './test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; path?: string } }).error;
const createSession = (init: RequestInit = {}, url = 'http://127.0.0.1:4317/api/sessions') =>
  notebook.app.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ concept: 'attack' }),
    ...init,
  });
const sessionIds = async () =>
  (JSON.parse(await readFile(join(notebook.root, 'sessions.json'), 'utf8')) as { id: string }[]).map(
    (session) => session.id,
  );

describe('guardRequests: Host (DNS rebinding)', () => {
  it.each([
    'http://attacker.example/api/sessions',
    'http://attacker.example:4317/api/sessions/raft-consensus/files/guidance.md',
    'http://127.0.0.1.attacker.example/api/sessions',
    'http://localhost.attacker.example/',
  ])('refuses %s with a typed 403 and stores nothing', async (url) => {
    const read = await notebook.app.request(url);
    expect(read.status).toBe(403);
    expect(await errorOf(read)).toMatchObject({ code: 'forbidden', path: 'Host' });
    const write = await createSession({}, url.replace(/\/api\/.*$|\/$/u, '/api/sessions'));
    expect(write.status).toBe(403);
    expect(await sessionIds()).toEqual(['raft-consensus']);
  });

  it.each([
    'http://localhost/api/sessions',
    'http://127.0.0.1:4317/api/sessions',
    'http://127.8.9.10/api/sessions',
    'http://[::1]:4317/api/sessions',
  ])('answers the loopback name %s', async (url) => {
    expect((await notebook.app.request(url)).status).toBe(200);
  });

  it.each(['127.999.999.999', '256.0.0.1:4317'])(
    'refuses the Host %s, which no URL can hold, with a typed 400 naming Host',
    async (host) => {
      // As the Node adapter passes it: the URL built from Host as it came, never parsed.
      const request = new Request('http://127.0.0.1/api/sessions');
      Object.defineProperty(request, 'url', { value: `http://${host}/api/sessions` });
      const response = await notebook.app.request(request);
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({
        code: 'invalid-argument',
        message: `invalid Host header "${host}": not a host name or address (at Host)`,
        path: 'Host',
      });
    },
  );

  it('answers a configured extra host', async () => {
    const proxied = await createTestNotebook({ allowedHosts: ['notebook.internal'] });
    try {
      expect((await proxied.app.request('http://notebook.internal/api/sessions')).status).toBe(200);
      expect((await proxied.app.request('http://other.internal/api/sessions')).status).toBe(403);
    } finally {
      await proxied.cleanup();
    }
  });
});

describe('guardRequests: Origin (cross-site requests)', () => {
  it.each(['https://attacker.example', 'http://attacker.example:4317', 'null', 'file://'])(
    'refuses a write from origin %s with a typed 403',
    async (origin) => {
      const response = await createSession({
        headers: { 'content-type': 'application/json', Origin: origin },
      });
      expect(response.status).toBe(403);
      expect(await errorOf(response)).toMatchObject({ code: 'forbidden', path: 'Origin' });
      expect(await sessionIds()).toEqual(['raft-consensus']);
    },
  );

  it('refuses Sec-Fetch-Site: cross-site, and accepts same-origin requests', async () => {
    const cross = await createSession({
      headers: { 'content-type': 'application/json', 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(cross.status).toBe(403);
    const same = await createSession({
      headers: {
        'content-type': 'application/json',
        Origin: 'http://127.0.0.1:4317',
        'Sec-Fetch-Site': 'same-origin',
      },
    });
    expect(same.status).toBe(201);
  });
});

describe('guardRequests: writes must be JSON', () => {
  const writes: [string, string, string, string][] = [
    ['POST', '/api/sessions', 'text/plain', '{"concept":"x"}'],
    ['POST', '/api/sessions', 'application/x-www-form-urlencoded', 'concept=x'],
    ['POST', '/api/sessions', 'multipart/form-data; boundary=x', '--x--'],
    ['POST', '/api/sessions/raft-consensus/chat', 'text/plain', '{}'],
    [
      'POST',
      '/api/sessions/raft-consensus/curation',
      'text/plain',
      '{"targetMessageIds":["m002"],"action":"exclude"}',
    ],
    ['POST', '/api/sessions/raft-consensus/compress', 'text/plain', '{}'],
    ['PATCH', '/api/sessions/raft-consensus', 'text/plain', '{"concept":"x"}'],
    ['PUT', '/api/sessions/raft-consensus/files/guidance.md', 'text/plain', '# pwned'],
    ['PUT', '/api/sessions/raft-consensus/context-config', 'text/plain', '{"version":1}'],
    ['DELETE', '/api/sessions/raft-consensus', 'text/plain', 'x'],
  ];
  it.each(writes)('%s %s with %s is refused with 415', async (method, path, type, body) => {
    const before = await readFile(join(notebook.root, 'raft-consensus', 'guidance.md'), 'utf8');
    const response = await notebook.app.request(path, { method, headers: { 'content-type': type }, body });
    expect(response.status).toBe(415);
    expect(await errorOf(response)).toMatchObject({ code: 'unsupported-media-type' });
    expect(await sessionIds()).toEqual(['raft-consensus']);
    expect(await readFile(join(notebook.root, 'raft-consensus', 'guidance.md'), 'utf8')).toBe(before);
    expect(await readFile(join(notebook.root, 'raft-consensus', 'memory.json'), 'utf8')).not.toContain(
      '"m002"',
    );
  });

  it('refuses a body without a content type, accepts application/json with a charset', async () => {
    expect(
      (await notebook.app.request('/api/sessions', { method: 'POST', body: '{"concept":"x"}' })).status,
    ).toBe(415);
    const ok = await createSession({ headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(ok.status).toBe(201);
  });
});

describe('guardRequests: the per-run token', () => {
  it('needs the bearer header or the cookie on /api, and ?token= sets an HttpOnly SameSite=Strict cookie', async () => {
    const guarded = await createTestNotebook({ token: 'run-token-123' });
    try {
      const bare = await guarded.app.request('http://127.0.0.1:4317/api/sessions');
      expect(bare.status).toBe(401);
      expect(await errorOf(bare)).toMatchObject({ code: 'unauthorized' });
      const wrong = await guarded.app.request('http://127.0.0.1:4317/api/sessions', {
        headers: { Authorization: 'Bearer run-token-12X' },
      });
      expect(wrong.status).toBe(401);
      const bearer = await guarded.app.request('http://127.0.0.1:4317/api/sessions', {
        headers: { Authorization: 'Bearer run-token-123' },
      });
      expect(bearer.status).toBe(200);

      const open = await guarded.app.request('http://127.0.0.1:4317/?lang=en&token=run-token-123');
      expect(open.status).toBe(302);
      expect(open.headers.get('Location')).toBe('/?lang=en');
      const cookie = open.headers.get('Set-Cookie') ?? '';
      expect(cookie).toMatch(/^ctxloom_token_4317=run-token-123;/u);
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('SameSite=Strict');
      const withCookie = await guarded.app.request('http://127.0.0.1:4317/api/sessions', {
        headers: { Cookie: cookie.split(';')[0] as string },
      });
      expect(withCookie.status).toBe(200);
      // Another port's cookie is not this server's.
      const otherPort = await guarded.app.request('http://127.0.0.1:4317/api/sessions', {
        headers: { Cookie: 'ctxloom_token_9999=run-token-123' },
      });
      expect(otherPort.status).toBe(401);
      const badLink = await guarded.app.request('http://127.0.0.1:4317/?token=guess');
      expect(badLink.status).toBe(401);
    } finally {
      await guarded.cleanup();
    }
  });
});

describe('guardRequests: the token, whatever the spelling of the path', () => {
  let guarded: Notebook;
  beforeEach(async () => {
    guarded = await createTestNotebook({ token: 'run-token-123' });
  });
  afterEach(() => guarded.cleanup());
  const base = 'http://127.0.0.1:4317';
  const bearer = { Authorization: 'Bearer run-token-123' };
  const ids = async () =>
    (JSON.parse(await readFile(join(guarded.root, 'sessions.json'), 'utf8')) as { id: string }[]).map(
      (session) => session.id,
    );

  // Spellings the router decodes to an /api route (URL normalises the dot segments first).
  const routed = [
    '/%61pi/sessions',
    '/a%70i/sessions',
    '/%61%70%69/sessions',
    '/api/%73essions',
    '/./api/sessions',
    '/x/../api/sessions',
    '/%2e/api/sessions',
    '/static/%2e%2e/api/sessions',
  ];
  it.each(routed)('GET %s needs the token, and answers with it', async (path) => {
    const bare = await guarded.app.request(`${base}${path}`);
    expect(bare.status).toBe(401);
    expect(await errorOf(bare)).toMatchObject({ code: 'unauthorized' });
    const withToken = await guarded.app.request(`${base}${path}`, { headers: bearer });
    expect(withToken.status).toBe(200);
    expect(((await withToken.json()) as { sessions: unknown[] }).sessions).toHaveLength(1);
  });

  // Spellings no route matches today: refused before routing all the same (fails closed).
  it.each(['/API/sessions', '//api/sessions', '/api%2Fsessions', '/%2561pi/sessions', '/Api/sessions'])(
    'GET %s is guarded too',
    async (path) => {
      expect((await guarded.app.request(`${base}${path}`)).status).toBe(401);
    },
  );

  it('PUT /%61pi/…/files/x.md writes nothing without the token, and writes with it', async () => {
    const written = () => readFile(join(guarded.root, 'raft-consensus', 'x.md'), 'utf8').catch(() => null);
    const put = (headers: Record<string, string>) =>
      guarded.app.request(`${base}/%61pi/sessions/raft-consensus/files/x.md`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ text: '# pwned\n' }),
      });
    expect((await put({})).status).toBe(401);
    expect(await written()).toBeNull();
    expect((await put(bearer)).status).toBe(200);
    expect(await written()).toBe('# pwned\n');
  });

  it('POST /a%70i/sessions creates nothing without the token, and is JSON-only with it', async () => {
    const post = (headers: Record<string, string>) =>
      guarded.app.request(`${base}/a%70i/sessions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ concept: 'attack' }),
      });
    expect((await post({ 'content-type': 'application/json' })).status).toBe(401);
    const plain = await post({ 'content-type': 'text/plain', ...bearer });
    expect(plain.status).toBe(415);
    expect(await ids()).toEqual(['raft-consensus']);
    expect((await post({ 'content-type': 'application/json', ...bearer })).status).toBe(201);
    expect(await ids()).toHaveLength(2);
  });

  it('keeps the JSON-only rule on every spelling without a token configured', async () => {
    const response = await notebook.app.request('/a%70i/sessions', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ concept: 'attack' }),
    });
    expect(response.status).toBe(415);
    expect(await sessionIds()).toEqual(['raft-consensus']);
  });

  it('still serves the token link on a public page', async () => {
    const open = await guarded.app.request(`${base}/?token=run-token-123`);
    expect(open.status).toBe(302);
  });
});

describe('guardRequests: state-changing requests come from this origin, whatever their body', () => {
  const compressionFile = (root: string) =>
    readFile(join(root, 'raft-consensus', 'compression.json'), 'utf8').catch(() => null);
  const compress = (app: Notebook['app'], headers: Record<string, string>) =>
    app.request('http://127.0.0.1:4317/api/sessions/raft-consensus/compress', { method: 'POST', headers });

  it.each([
    ['another loopback port', { Origin: 'http://127.0.0.1:8080' }],
    ['another loopback name', { Origin: 'http://localhost:4317' }],
    ['another scheme', { Origin: 'https://127.0.0.1:4317' }],
    ['a same-site fetch', { 'Sec-Fetch-Site': 'same-site' }],
    [
      'a same-site fetch with this origin',
      { 'Sec-Fetch-Site': 'same-site', Origin: 'http://127.0.0.1:4317' },
    ],
    ['a navigation', { 'Sec-Fetch-Site': 'none' }],
  ])(
    'refuses a body-less POST /compress from %s, with the cookie, and writes nothing',
    async (_name, headers) => {
      const guarded = await createTestNotebook({ token: 'run-token-123' });
      try {
        const before = await compressionFile(guarded.root);
        const response = await compress(guarded.app, {
          Cookie: 'ctxloom_token_4317=run-token-123',
          ...headers,
        });
        expect(response.status).toBe(403);
        expect(await errorOf(response)).toMatchObject({ code: 'forbidden' });
        expect(await compressionFile(guarded.root)).toBe(before);
      } finally {
        await guarded.cleanup();
      }
    },
  );

  it('refuses it without a token configured too, and on DELETE, PUT and PATCH', async () => {
    const foreign = { Origin: 'http://127.0.0.1:8080' };
    expect((await compress(notebook.app, foreign)).status).toBe(403);
    for (const [method, path] of [
      ['DELETE', '/api/sessions/raft-consensus'],
      ['DELETE', '/api/sessions/raft-consensus/files/guidance.md'],
      ['PATCH', '/api/sessions/raft-consensus'],
      ['PUT', '/api/sessions/raft-consensus/files/x.md'],
    ] as const) {
      const response = await notebook.app.request(`http://127.0.0.1:4317${path}`, {
        method,
        headers: foreign,
      });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
    }
    expect(await sessionIds()).toEqual(['raft-consensus']);
    expect(await readFile(join(notebook.root, 'raft-consensus', 'guidance.md'), 'utf8')).toContain('#');
  });

  it('accepts this origin, Sec-Fetch-Site: same-origin, the bearer header, and non-browser clients', async () => {
    const guarded = await createTestNotebook({ token: 'run-token-123' });
    try {
      const cookie = { Cookie: 'ctxloom_token_4317=run-token-123' };
      const accepted: Record<string, string>[] = [
        { ...cookie, Origin: 'http://127.0.0.1:4317' },
        { ...cookie, Origin: 'HTTP://127.0.0.1:4317' },
        { ...cookie, 'Sec-Fetch-Site': 'same-origin', Origin: 'http://127.0.0.1:5173' },
        { Authorization: 'Bearer run-token-123', Origin: 'http://127.0.0.1:8080' },
        cookie,
      ];
      for (const headers of accepted) {
        expect({ headers, status: (await compress(guarded.app, headers)).status }).toEqual({
          headers,
          status: 200,
        });
      }
      expect(await compressionFile(guarded.root)).not.toBeNull();
      // A wrong bearer does not lift the origin rule.
      const wrong = await compress(guarded.app, {
        ...cookie,
        Authorization: 'Bearer nope',
        Origin: 'http://127.0.0.1:8080',
      });
      expect(wrong.status).toBe(403);
    } finally {
      await guarded.cleanup();
    }
  });
});
