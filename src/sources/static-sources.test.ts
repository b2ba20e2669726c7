import { describe, expect, it } from 'vitest';
import { CtxloomError, type Message } from '../core/index.ts';
import { createAgentSource } from './agent-source.ts';
import { createPromptSource } from './prompt-source.ts';
import { createSkillSource } from './skill-source.ts';
import { makeBudget, makeRequest } from './test-request.test-support.ts';
import { createToolSource } from './tool-source.ts';
import { createUserSource } from './user-source.ts';

const skills = [
  {
    name: 'sql-review',
    description: 'Review SQL migrations',
    instructions: 'Check locks, indexes and rollbacks of every migration.',
  },
  {
    name: 'release-notes',
    description: 'Write release notes',
    instructions: 'Group changes by feature; link issues.',
  },
];

describe('createSkillSource', () => {
  it('lists every skill and loads the instructions of the relevant one', async () => {
    const blocks = await createSkillSource({ skills }).collect(
      makeRequest('please review this migration'),
      makeBudget(1000),
    );
    expect(blocks[0]?.content).toBe(
      'Available skills:\n- sql-review — Review SQL migrations\n- release-notes — Write release notes',
    );
    expect(blocks.slice(1).map((block) => block.metadata.skill)).toEqual(['sql-review']);
    // The loaded instructions follow the query: a per-call layer, not the cached framework layer.
    expect(blocks.every((block) => block.layer === 'knowledge__context')).toBe(true);
  });
});

describe('createToolSource', () => {
  it('keeps the tool guides in their given order whatever the query, and reports recent failures', async () => {
    const history: Message[] = [
      {
        id: 'r',
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't',
            toolName: 'fetch',
            output: { type: 'error-text', value: '404 Not Found' },
          },
        ],
      },
    ];
    const source = createToolSource({
      tools: [
        { name: 'fetch', description: 'Download a URL' },
        { name: 'grep', description: 'Search files for a pattern', usage: 'Prefer narrow patterns.' },
      ],
    });
    const blocks = await source.collect(makeRequest('search the files', history), makeBudget(1000));
    expect(blocks.map((block) => block.id)).toEqual(['tool:recent-errors', 'tool:fetch', 'tool:grep']);
    expect(blocks[0]?.content).toContain('- fetch: 404 Not Found');
    const other = await source.collect(makeRequest('download the page', history), makeBudget(1000));
    expect(other.slice(1).map((block) => block.content)).toEqual(
      blocks.slice(1).map((block) => block.content),
    );
  });
});

describe('createPromptSource', () => {
  it('renders the fragments that apply, with variables', async () => {
    const source = createPromptSource({
      fragments: [
        { id: 'tone', template: 'Answer in {{language}}.' },
        { id: 'late', template: 'Summarise decisions.', when: (request) => request.phase === 'late' },
      ],
      variables: { language: 'Chinese' },
    });
    const blocks = await source.collect(makeRequest('q'), makeBudget(100));
    expect(blocks.map((block) => block.content)).toEqual(['Answer in Chinese.']);
  });

  it('throws invalid-config for a placeholder without a value', async () => {
    const source = createPromptSource({ fragments: [{ id: 'x', template: 'Hi {{name}}' }] });
    await expect(source.collect(makeRequest('q'), makeBudget(100))).rejects.toSatisfy((error) =>
      CtxloomError.is(error, 'invalid-config'),
    );
  });
});

describe('createUserSource', () => {
  it('renders the profile and drops facts first when short of budget', async () => {
    const source = createUserSource({
      profile: () => ({
        name: 'Li Wei',
        locale: 'zh-CN',
        preferences: ['short answers'],
        facts: ['studies Raft consensus in depth'],
      }),
    });
    const all = await source.collect(makeRequest('q'), makeBudget(1000));
    expect(all.map((block) => block.metadata.part)).toEqual(['header', 'preferences', 'facts']);
    const header = all[0]?.tokens ?? 0;
    const preferences = all[1]?.tokens ?? 0;
    const short = await source.collect(makeRequest('q'), makeBudget(header + preferences + 5));
    expect(short.map((block) => block.metadata.part)).toEqual(['header', 'preferences']);
    expect(
      await createUserSource({ profile: () => undefined }).collect(makeRequest('q'), makeBudget(100)),
    ).toEqual([]);
  });
});

describe('createAgentSource', () => {
  const state = {
    role: 'planner',
    goal: 'Ship v2',
    plan: [
      { step: 'design', status: 'done' as const },
      { step: 'build', status: 'in-progress' as const },
      { step: 'test', status: 'pending' as const },
    ],
    notes: ['API frozen on Monday'],
  };

  it('renders role, goal, plan checklist and notes into todo__context', async () => {
    const [block] = await createAgentSource({ state: () => state }).collect(
      makeRequest('q'),
      makeBudget(1000),
    );
    expect(block?.layer).toBe('todo__context');
    expect(block?.content).toBe(
      'Role: planner\nGoal: Ship v2\nPlan:\n[x] design\n[~] build\n[ ] test\nNotes:\n- API frozen on Monday',
    );
  });

  it('sheds notes and done steps before giving up', async () => {
    const long = {
      ...state,
      plan: [
        ...['research the market', 'write the design doc', 'get sign-off'].map((step) => ({
          step,
          status: 'done' as const,
        })),
        ...state.plan.slice(1),
      ],
    };
    const [block] = await createAgentSource({ state: () => long }).collect(makeRequest('q'), makeBudget(70));
    expect(block?.content).toBe('Role: planner\nGoal: Ship v2\nPlan:\n(3 steps done)\n[~] build\n[ ] test');
    expect(await createAgentSource({ state: () => state }).collect(makeRequest('q'), makeBudget(5))).toEqual(
      [],
    );
  });
});
