import { describe, expect, it } from 'vitest';
import manifest from '../../package.json' with { type: 'json' };
import { isSupportedNode, MIN_NODE } from './node-version.ts';

describe('isSupportedNode', () => {
  it('accepts the minimum and anything newer, rejects anything older', () => {
    expect(isSupportedNode(MIN_NODE)).toBe(true);
    expect(isSupportedNode(`v${MIN_NODE}`)).toBe(true);
    expect(isSupportedNode('24.0.0')).toBe(true);
    expect(isSupportedNode('22.20.1')).toBe(true);
    expect(isSupportedNode('22.15.1')).toBe(false);
    expect(isSupportedNode('22.12.0')).toBe(false);
    expect(isSupportedNode('20.20.2')).toBe(false);
    expect(isSupportedNode('v18.0.0')).toBe(false);
  });

  it('is what package.json engines.node says', () => {
    expect(manifest.engines.node).toBe(`>=${MIN_NODE}`);
  });
});
