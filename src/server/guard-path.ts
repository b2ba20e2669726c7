/**
 * The path the request guard judges: the router's path (Hono's `getPath`, i.e. `c.req.path`:
 * the URL path after `decodeURI`, which decodes `%61` but keeps `%2F`), then decoded further
 * until stable (`%2F`, `%252F`, …), backslashes read as slashes, runs of slashes collapsed, dot
 * segments removed and lower-cased. It is never used to route, only to decide that a request
 * is guarded, so every way of spelling an `/api` path — one the router matches today or one a
 * later router, proxy or file server might — is judged as `/api/…`.
 */
export function guardPath(routerPath: string): string {
  let path = routerPath;
  for (let round = 0; round < 8 && path.includes('%'); round += 1) {
    const decoded = decodeTolerantly(path);
    if (decoded === path) break;
    path = decoded;
  }
  const segments: string[] = [];
  for (const segment of path.replace(/\\/gu, '/').toLowerCase().split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/**
 * True when a request may pass without the token: a `GET`/`HEAD` of a path that is not an API
 * path ({@link isApiPath}: the UI's static files and pages). Everything else — every write,
 * every other method, every spelling of an `/api` path — is guarded; the rule fails closed. The
 * same rule decides which paths get the JSON `not-found` instead of the UI, so the guard and
 * the router never disagree on what an API path is.
 */
export function isPublicRequest({ method, routerPath }: { method: string; routerPath: string }): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return !isApiPath(routerPath);
}

/**
 * True when the first segment of the request's {@link guardPath} is `api`, in any letter case
 * and any spelling (`/API/sessions`, `/Api/calls`, `//api/x`, `/api%2Fx`): an API path, which
 * is answered by an `/api` route or a JSON `not-found`, never by the UI's `index.html`.
 */
export function isApiPath(routerPath: string): boolean {
  const path = guardPath(routerPath);
  return path === '/api' || path.startsWith('/api/');
}

function decodeTolerantly(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    // A stray `%` or a broken UTF-8 sequence: decode the runs that do decode.
    return path.replace(/(?:%[0-9A-Fa-f]{2})+/gu, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}
