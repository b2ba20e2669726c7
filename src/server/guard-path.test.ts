import { describe, expect, it } from 'vitest';
import { guardPath, isApiPath, isPublicRequest } from './guard-path.ts';

describe('guardPath', () => {
  it.each([
    ['/api/sessions', '/api/sessions'],
    ['/%61pi/sessions', '/api/sessions'],
    ['/%2561pi/sessions', '/api/sessions'],
    ['/API//Sessions/', '/api/sessions'],
    ['/api%2Fsessions', '/api/sessions'],
    ['/%2F%2Fapi%5Csessions', '/api/sessions'],
    ['/x/./../api/sessions', '/api/sessions'],
    ['/../../api', '/api'],
    ['/a%E0%A4%A/%61pi', '/a%e0%a4%a/api'],
    ['/', '/'],
  ])('reads %s as %s', (path, expected) => {
    expect(guardPath(path)).toBe(expected);
  });
});

describe('isPublicRequest', () => {
  it('lets only a GET or HEAD of a non-/api path pass without the token', () => {
    expect(isPublicRequest({ method: 'GET', routerPath: '/assets/index.js' })).toBe(true);
    expect(isPublicRequest({ method: 'HEAD', routerPath: '/' })).toBe(true);
    expect(isPublicRequest({ method: 'GET', routerPath: '/Api/sessions' })).toBe(false);
    expect(isPublicRequest({ method: 'GET', routerPath: '/%2561pi/x' })).toBe(false);
    // The same first-segment rule as isApiPath: a page whose name begins with "api" is the UI's.
    expect(isPublicRequest({ method: 'GET', routerPath: '/apiary' })).toBe(true);
    expect(isPublicRequest({ method: 'POST', routerPath: '/assets/index.js' })).toBe(false);
    expect(isPublicRequest({ method: 'OPTIONS', routerPath: '/' })).toBe(false);
  });
});

describe('isApiPath', () => {
  it('is true when the first segment, read as the guard reads it, is api in any case', () => {
    for (const path of ['/api', '/API/', '/Api/calls', '//aPI/sessions', '/api%2Fsessions', '/%2561pi/x']) {
      expect(isApiPath(path), path).toBe(true);
    }
    for (const path of ['/', '/apiary', '/notes/api', '/assets/api.js']) {
      expect(isApiPath(path), path).toBe(false);
    }
  });
});
