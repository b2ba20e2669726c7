import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { CtxloomError } from '../core/index.ts';

/**
 * Middleware that requires `Authorization: Bearer <token>`; throws `unauthorized` otherwise.
 * The comparison takes the same time whatever the prefix that matches.
 */
export function requireBearer(token: string): MiddlewareHandler {
  const expected = Buffer.from(token);
  return async (c, next) => {
    const header = c.req.header('Authorization') ?? '';
    const match = /^Bearer\s+(.+)$/iu.exec(header);
    const given = Buffer.from(match?.[1]?.trim() ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new CtxloomError({
        code: 'unauthorized',
        message: 'this server needs Authorization: Bearer <CTXLOOM_TOKEN>',
      });
    }
    await next();
  };
}
