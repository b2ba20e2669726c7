import { describe, expect, it } from 'vitest';
import { CtxloomError } from '../core/index.ts';
import { requirePeer } from './require-peer.ts';

describe('requirePeer', () => {
  it('loads an installed package', () => {
    const zod = requirePeer<typeof import('zod')>({ name: 'zod', feature: 'schemas' });
    expect(typeof zod.z.string).toBe('function');
  });

  it('names the package to install when it is missing', () => {
    const load = () => requirePeer({ name: '@ctxloom/not-installed', feature: 'the test feature' });
    expect(load).toThrow(CtxloomError);
    expect(load).toThrow(
      'the test feature needs the package "@ctxloom/not-installed", which is not installed',
    );
    try {
      load();
    } catch (error) {
      expect((error as CtxloomError).code).toBe('missing-dependency');
      expect((error as CtxloomError).path).toBe('@ctxloom/not-installed');
    }
  });
});
