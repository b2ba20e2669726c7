import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { profileBlocksOf, setProfileBlocks } from '../../web/src/set-profile-blocks.ts';

const example = await readFile(
  new URL('../../examples/notebook/raft-consensus/context-config.json', import.meta.url),
  'utf8',
);

describe('setProfileBlocks', () => {
  it('changes only the profileBlocks value and keeps the rest of the file byte for byte', () => {
    const next = setProfileBlocks(example, ['学习目标', '8701df', '考试安排']);
    expect(profileBlocksOf(next)).toEqual(['学习目标', '8701df', '考试安排']);
    const before = example.split('\n');
    const after = next.split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.filter((line, index) => line !== before[index]);
    expect(changed).toEqual(['  "profileBlocks": ["学习目标", "8701df", "考试安排"],']);
  });

  it('adds the key in the file’s own indentation when it is missing', () => {
    const text = '{\n    "version": 1,\n    "profile": "profile.md"\n}\n';
    const next = setProfileBlocks(text, ['a']);
    expect(JSON.parse(next)).toEqual({ version: 1, profile: 'profile.md', profileBlocks: ['a'] });
    expect(next.startsWith('{\n    "version": 1,\n    "profile": "profile.md",')).toBe(true);
  });

  it('keeps a multi-line array multi-line', () => {
    const text = '{\n  "profileBlocks": [\n    "a",\n    "b"\n  ],\n  "x": {"y": 1}\n}\n';
    const next = setProfileBlocks(text, ['b']);
    expect(JSON.parse(next)).toEqual({ profileBlocks: ['b'], x: { y: 1 } });
    expect(next).toContain('"x": {"y": 1}');
  });
});
