import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { CtxloomError } from '../core/index.ts';
import { isPublicRequest } from './guard-path.ts';

/** Host names every notebook server answers to: the loopback names. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1', '[::1]'] as const;

/** Options of {@link guardRequests}. */
export interface GuardRequestsOptions {
  /**
   * Host names (no port) accepted in `Host` and `Origin` besides the loopback names and
   * 127.0.0.0/8: the bound host and any configured extra hosts (a reverse proxy's name).
   * `'*'` accepts every host (only behind a proxy that checks it).
   */
  allowedHosts?: readonly string[];
  /**
   * When set, every request but a `GET`/`HEAD` of a static UI file needs it (see
   * {@link isPublicRequest}): `Authorization: Bearer <token>`, or the `HttpOnly;
   * SameSite=Strict` cookie set by opening any page with `?token=<token>` (the URL the server
   * prints, as Jupyter does).
   */
  token?: string;
}

/** Name of the token cookie; per port, since cookies do not separate the ports of one host. */
export function tokenCookieName(url: URL): string {
  return `ctxloom_token_${url.port === '' ? 'default' : url.port}`;
}

/**
 * The notebook's request guard, in order:
 * 1. `Host` must be loopback, the bound host or an allowed host — else 403 `forbidden` (a
 *    DNS-rebinding page reaches the server under its own name); one that is no host name or
 *    address at all is 400 `invalid-argument`;
 * 2. `Origin`, when sent, must have such a host too, and `Sec-Fetch-Site: cross-site` is
 *    refused — else 403 `forbidden` (a page the user visits posting to the server);
 * 3. with a token: `?token=` on a page sets the cookie and redirects to the URL without it;
 *    every request but a `GET`/`HEAD` of a non-`/api` path ({@link isPublicRequest}, judged on
 *    the decoded, normalised path the router matches, whatever its spelling) without the
 *    bearer header or the cookie gets 401 `unauthorized`;
 * 4. a request that may change state (any method but `GET`/`HEAD`), whatever its body, must
 *    come from the server's own origin — `Sec-Fetch-Site: same-origin`, or else an `Origin`
 *    equal to the request's own scheme, host and port — or carry the valid bearer header;
 *    else 403 `forbidden` (another port of the same host is the same *site*, so its page
 *    gets the `SameSite` cookie sent). A request with neither header is a non-browser client
 *    (every browser sends `Origin` on such requests) and passes this step: it still needs the
 *    token of step 3 (docs/security.md, decision 041);
 * 5. a write (`POST`/`PUT`/`PATCH`/`DELETE`) to any path that has a body must be
 *    `application/json` — else 415 `unsupported-media-type` (HTML forms and `text/plain`
 *    fetches, which browsers send cross-site without a preflight, never qualify).
 */
export function guardRequests(options: GuardRequestsOptions = {}): MiddlewareHandler {
  const extra = new Set((options.allowedHosts ?? []).map((host) => normaliseHost(host)));
  const anyHost = extra.has('*');
  const allowed = (host: string): boolean => anyHost || isLoopbackName(host) || extra.has(host);
  const expected = options.token === undefined ? undefined : Buffer.from(options.token);

  return async (c, next) => {
    const url = requestUrl(c);
    if (!allowed(normaliseHost(url.hostname))) {
      throw new CtxloomError({
        code: 'forbidden',
        message: `this server does not answer to host ${JSON.stringify(url.hostname)} (allowed: loopback and the configured hosts)`,
        path: 'Host',
      });
    }
    const origin = c.req.header('Origin');
    if (origin !== undefined && !allowed(originHost(origin))) {
      throw new CtxloomError({
        code: 'forbidden',
        message: `cross-site request from origin ${JSON.stringify(origin.slice(0, 200))} refused`,
        path: 'Origin',
      });
    }
    if (c.req.header('Sec-Fetch-Site') === 'cross-site') {
      throw new CtxloomError({
        code: 'forbidden',
        message: 'cross-site request refused',
        path: 'Sec-Fetch-Site',
      });
    }
    // Judged on the path the router matches (c.req.path, decoded), never on the raw URL.
    const isPublic = isPublicRequest({ method: c.req.method, routerPath: c.req.path });
    if (expected !== undefined) {
      const given = url.searchParams.get('token');
      if (given !== null && isPublic && c.req.method === 'GET') {
        if (!matches(expected, given)) {
          throw new CtxloomError({ code: 'unauthorized', message: 'wrong token in the URL', path: 'token' });
        }
        setCookie(c, tokenCookieName(url), given, { httpOnly: true, sameSite: 'Strict', path: '/' });
        url.searchParams.delete('token');
        return c.redirect(`${url.pathname}${url.search}${url.hash}`, 302);
      }
      if (!isPublic && !authorised(c, expected, url)) {
        c.header('WWW-Authenticate', 'Bearer');
        throw new CtxloomError({
          code: 'unauthorized',
          message:
            'this server needs its token: open the URL it printed (…/?token=…) or send Authorization: Bearer <token>',
        });
      }
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const bearer = expected !== undefined && hasValidBearer(c, expected);
      const refusal = bearer ? undefined : crossOriginRefusal(c, url);
      if (refusal !== undefined) {
        throw new CtxloomError({
          code: 'forbidden',
          message: `${c.req.method} refused: ${refusal.reason} (send it from this server's own origin, ${url.origin}, or with Authorization: Bearer <token>)`,
          path: refusal.header,
        });
      }
    }
    if (isWrite(c.req.method) && hasBody(c) && !isJson(c.req.header('Content-Type'))) {
      throw new CtxloomError({
        code: 'unsupported-media-type',
        message: `${c.req.method} needs Content-Type: application/json`,
        path: 'Content-Type',
      });
    }
    await next();
    return undefined;
  };
}

/**
 * The request's URL. The Node adapter passes a `Host` it finds well formed as it is, so a
 * host no URL can hold (`127.999.999.999`) reaches here: 400 naming `Host`, not a 500.
 */
function requestUrl(c: Context): URL {
  try {
    return new URL(c.req.url);
  } catch (cause) {
    const host = /^[a-z]+:\/\/([^/?#]*)/iu.exec(c.req.url)?.[1] ?? '';
    throw new CtxloomError({
      code: 'invalid-argument',
      message: `invalid Host header ${JSON.stringify(host.slice(0, 200))}: not a host name or address`,
      path: 'Host',
      cause,
    });
  }
}

function authorised(c: Context, expected: Buffer, url: URL): boolean {
  if (hasValidBearer(c, expected)) return true;
  const cookie = getCookie(c, tokenCookieName(url));
  return cookie !== undefined && matches(expected, cookie);
}

function hasValidBearer(c: Context, expected: Buffer): boolean {
  const header = /^Bearer\s+(.+)$/iu.exec(c.req.header('Authorization') ?? '')?.[1]?.trim();
  return header !== undefined && matches(expected, header);
}

/**
 * Why a state-changing request is not from the server's own origin, or `undefined` when it is
 * (or when it sends neither `Sec-Fetch-Site` nor `Origin`: a non-browser client).
 * `Sec-Fetch-Site` is set by the browser alone and survives a proxy that rewrites `Host`, so
 * it decides when present; `Origin` is compared as scheme, host and port.
 */
function crossOriginRefusal(c: Context, url: URL): { reason: string; header: string } | undefined {
  const site = c.req.header('Sec-Fetch-Site');
  if (site !== undefined) {
    return site.trim().toLowerCase() === 'same-origin'
      ? undefined
      : { reason: `Sec-Fetch-Site is ${JSON.stringify(site.slice(0, 40))}`, header: 'Sec-Fetch-Site' };
  }
  const origin = c.req.header('Origin');
  if (origin === undefined) return undefined;
  return serialisedOrigin(origin) === url.origin
    ? undefined
    : { reason: `origin ${JSON.stringify(origin.slice(0, 200))} is not this server's`, header: 'Origin' };
}

function serialisedOrigin(origin: string): string | undefined {
  try {
    const parsed = new URL(origin);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined; // `null` and other opaque origins
  }
}

/** Compares in time independent of the matching prefix. */
function matches(expected: Buffer, given: string): boolean {
  const bytes = Buffer.from(given);
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

function isWrite(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
}

function hasBody(c: Context): boolean {
  const length = c.req.header('Content-Length');
  if (length !== undefined) return Number(length) > 0;
  if (c.req.header('Transfer-Encoding') !== undefined) return true;
  // The Node adapter gives a DELETE without Content-Length an (empty) body stream; a browser's
  // body-less DELETE sends neither a length nor a content type.
  if (c.req.method === 'DELETE') return c.req.header('Content-Type') !== undefined;
  return c.req.raw.body !== null;
}

function isJson(contentType: string | undefined): boolean {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  return media === 'application/json';
}

function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/u, '');
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? normaliseHost(url.hostname) : '';
  } catch {
    return ''; // `null` and other opaque origins
  }
}

function isLoopbackName(host: string): boolean {
  return (LOOPBACK_HOSTS as readonly string[]).includes(host) || /^127(?:\.\d{1,3}){3}$/u.test(host);
}
