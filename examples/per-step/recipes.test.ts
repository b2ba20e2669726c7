import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hasEveryLine } from '../../src/ai-sdk/follow-placeholders.test-support.ts';
import { countCallTokens } from '../../src/ai-sdk/index.ts';
import { countToolDefinitions, type Message } from '../../src/core/index.ts';
import { getTokenCounter } from '../../src/tokenizers/index.ts';
import { expectQuotedWhole } from '../doc-examples.test-support.ts';
import {
  CHINESE_FILE,
  LARGE_FILE,
  modelCalls,
  providers,
  reports,
  resetEnvironment,
} from './recipe-environment.ts';

/**
 * The code blocks of docs/per-step.md are these files, in this order: the doc quotes each file
 * whole, with its `../../src/<area>/index.ts` imports written as the package's `ctxloom/<area>`.
 */
const RECIPES = [
  'middleware.ts',
  'prepare-step.ts',
  'step-compiler.ts',
  'react-agent.ts',
  'react-agent-stream.ts',
  'diff-reports.ts',
];
const counter = getTokenCounter('gpt-4o');

beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(() => {
  vi.restoreAllMocks();
});

describe('docs/per-step.md', () => {
  it('quotes every recipe file whole, and has no TypeScript block that is not one', async () => {
    await expectQuotedWhole(
      'docs/per-step.md',
      RECIPES.map((name) => `examples/per-step/${name}`),
    );
  });

  /** What an AI SDK recipe's provider received equals its reports, open_artifact included. */
  function expectSentAsReported(calls: readonly LanguageModelV4CallOptions[]) {
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(reports).toHaveLength(calls.length);
    for (const [index, call] of calls.entries()) {
      const report = reports[index];
      expect(countCallTokens(call, counter)).toBe(report?.totalTokens);
      expect(report?.totalTokens).toBeLessThanOrEqual(report?.inputBudget ?? 0);
      expect(call.maxOutputTokens).toBe(report?.outputReserve);
      expect(call.tools?.map((tool) => tool.name)).toEqual(['read_file', 'open_artifact']);
      expect(report?.tools?.names).toEqual(['read_file', 'open_artifact']);
    }
    // The file is behind a placeholder in the second call, and read through open_artifact by the third.
    expect(JSON.stringify(calls[1]?.prompt)).toContain('call open_artifact with');
    expect(hasEveryLine([calls[2]?.prompt ?? []], LARGE_FILE)).toBe(true);
  }

  it('runs the middleware recipe: every call is sent as its report says, tools included', async () => {
    resetEnvironment();
    await import('./middleware.ts');
    expectSentAsReported(providers[0]?.doGenerateCalls ?? []);
  });

  it('runs the prepareStep recipe: prepareStep.tools adds open_artifact, and its schema is counted', async () => {
    resetEnvironment();
    await import('./prepare-step.ts');
    expectSentAsReported(providers[0]?.doGenerateCalls ?? []);
  });

  it('runs the step compiler recipe: a 5,500-token Chinese file is in the third call, each call as reported', async () => {
    resetEnvironment();
    await import('./step-compiler.ts');
    expect(modelCalls.length).toBeGreaterThanOrEqual(3);
    expect(reports).toHaveLength(modelCalls.length);
    for (const [index, call] of modelCalls.entries()) {
      const report = reports[index];
      const sent = counter.countMessages(call.messages) + countToolDefinitions(call.tools, counter);
      expect(sent).toBe(report?.totalTokens);
      expect(report?.totalTokens).toBeLessThanOrEqual(report?.inputBudget ?? 0);
      expect(report?.tools?.names).toEqual(['read_file', 'open_artifact']);
    }
    const outputs = (messages: Message[]) =>
      messages.flatMap((message) =>
        Array.isArray(message.content)
          ? message.content.flatMap((part) =>
              part.type === 'tool-result' && part.output.type === 'text' ? [part.output.value] : [],
            )
          : [],
      );
    const third = outputs(modelCalls[2]?.messages ?? []).join('\n');
    expect(CHINESE_FILE.split('\n').every((line) => third.includes(line))).toBe(true);
  });

  it('runs the LangGraph recipe: the agent counts the open_artifact it adds', async () => {
    resetEnvironment();
    await import('./react-agent.ts');
    // The agent streams its calls (LangGraph's `messages` mode gets their tokens).
    expectSentAsReported(providers[0]?.doStreamCalls ?? []);
  });

  it('runs the diffReports recipe over the last two reports', async () => {
    const [previous, current] = reports.slice(-2);
    await import('./diff-reports.ts');
    const logged = vi.mocked(console.log).mock.calls.at(-1)?.[0];
    expect(logged).toMatch(/^\d+ cached, \d+ new$/u);
    expect(previous?.totalTokens).toBeLessThan(current?.totalTokens ?? 0);
  });

  it('runs the LangGraph streaming recipe: the reply arrives in many token chunks that add up to it', async () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
      written.push(String(text));
      return true;
    });
    try {
      await import('./react-agent-stream.ts');
    } finally {
      write.mockRestore();
    }
    expect(written.filter((text) => text !== '').length).toBeGreaterThan(1);
    expect(written.join('')).toBe('The job checks every partition.');
  });
});
