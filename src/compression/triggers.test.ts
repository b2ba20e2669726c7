import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CtxloomError, type Message } from '../core/index.ts';
import { createCharCounter } from '../testing/index.ts';
import { createCompressionTrigger } from './create-compression-trigger.ts';
import { decideCompressionTrigger } from './decide-compression-trigger.ts';
import { parseManualCompressCommand } from './parse-manual-compress-command.ts';
import { prepareWithinBudget } from './prepare-within-budget.ts';

const counter = createCharCounter();
const message = (id: string, length: number, role: Message['role'] = 'user'): Message => ({
  id,
  role,
  content: 'x'.repeat(Math.max(0, length - role.length)),
});

describe('parseManualCompressCommand', () => {
  it('accepts exactly the three commands', () => {
    expect(parseManualCompressCommand('/compress')).toEqual({ type: 'compress', scope: 'all' });
    expect(parseManualCompressCommand('  /compress requirement ')).toEqual({
      type: 'compress',
      scope: 'requirement',
    });
    expect(parseManualCompressCommand('/compress artifacts')).toEqual({
      type: 'compress',
      scope: 'artifacts',
    });
  });

  it('never treats prose or near-misses as a command', () => {
    for (const text of [
      'please /compress the history',
      '压缩一下上下文',
      'compress',
      '/compress requirements',
      '/compress artifacts now',
      '/Compress',
      '/compressartifacts',
      '/compress\nrequirement',
    ]) {
      expect(parseManualCompressCommand(text)).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        const command = parseManualCompressCommand(text);
        if (command !== undefined)
          expect(['/compress', '/compress requirement', '/compress artifacts']).toContain(
            text.trim().replace(/[ \t]+/gu, ' '),
          );
      }),
    );
  });
});

describe('decideCompressionTrigger', () => {
  it('returns none, soft and hard at the window fractions', () => {
    const at = (length: number) =>
      decideCompressionTrigger([message('m', length)], { window: 1000, counter }).level;
    expect(at(699)).toBe('none');
    expect(at(700)).toBe('soft');
    expect(at(899)).toBe('soft');
    expect(at(900)).toBe('hard');
  });

  it('counts the output reserve and rejects inconsistent thresholds', () => {
    expect(
      decideCompressionTrigger([message('m', 500)], { window: 1000, counter, outputReserve: 200 }).level,
    ).toBe('soft');
    expect(() => decideCompressionTrigger([], { window: 1000, counter, soft: 0.9, hard: 0.8 })).toThrow(
      CtxloomError,
    );
  });
});

describe('prepareWithinBudget', () => {
  it('does not compress under the soft limit', async () => {
    let compressions = 0;
    const prepared = await prepareWithinBudget({
      window: 1000,
      counter,
      build: () => ({ messages: [message('a', 100)] }),
      compress: () => {
        compressions++;
      },
    });
    expect(prepared.compressed).toBe('none');
    expect(compressions).toBe(0);
  });

  it('compresses once and rebuilds when the hard limit is hit', async () => {
    let history = [message('a', 600), message('b', 350)];
    const levels: string[] = [];
    const prepared = await prepareWithinBudget({
      window: 1000,
      counter,
      build: () => ({ messages: history }),
      compress: (level) => {
        levels.push(level);
        history = [message('summary', 100, 'system'), message('b', 350)];
      },
    });
    expect(levels).toEqual(['hard']);
    expect(prepared.messages.map((m) => m.id)).toEqual(['summary', 'b']);
    expect(prepared.trigger.level).toBe('none');
  });

  it('throws over-budget instead of looping when compression does not help', async () => {
    let compressions = 0;
    const attempt = prepareWithinBudget({
      window: 1000,
      counter,
      build: () => ({ messages: [message('huge', 950)] }),
      compress: () => {
        compressions++;
      },
    });
    await expect(attempt).rejects.toSatisfy(
      (error) => CtxloomError.is(error, 'over-budget') && /narrow the scope/.test(error.message),
    );
    expect(compressions).toBe(1);
  });

  it('builds every payload under the soft limit once clipping is forced', async () => {
    const history = Array.from({ length: 20 }, (_, index) => message(`m${index}`, 100));
    const limits: (number | undefined)[] = [];
    const prepared = await prepareWithinBudget({
      window: 1000,
      counter,
      // Stands in for the core compile: keeps the newest messages under the limit, reports the rest.
      build: ({ maxInputTokens }) => {
        limits.push(maxInputTokens);
        const kept: typeof history = [];
        let tokens = 0;
        for (const item of [...history].reverse()) {
          const cost = counter.countMessages([item]);
          if (maxInputTokens !== undefined && tokens + cost > maxInputTokens) break;
          tokens += cost;
          kept.unshift(item);
        }
        return {
          messages: kept,
          clippedIds: history.slice(0, history.length - kept.length).map((m) => m.id),
        };
      },
      compress: () => {},
      forceContextClipping: true,
    });
    expect(prepared.compressed).toBe('none');
    expect(prepared.trigger.tokens).toBeLessThan(700);
    expect(limits).toEqual([699]);
    expect(prepared.clippedIds[0]).toBe('m0');
    expect(prepared.messages.at(-1)?.id).toBe('m19');
  });
});

describe('createCompressionTrigger', () => {
  it('decides like decideCompressionTrigger and counts each message object once', () => {
    let counted = 0;
    const counting = {
      ...counter,
      countMessages: (messages: readonly Message[]) => {
        counted += messages.length;
        return counter.countMessages(messages);
      },
    };
    const trigger = createCompressionTrigger({ window: 1000, counter: counting });
    const history = [message('a', 300), message('b', 300)];
    expect(trigger.decide(history)).toEqual(decideCompressionTrigger(history, { window: 1000, counter }));
    const grown = [...history, message('c', 200)];
    expect(trigger.decide(grown)).toEqual(decideCompressionTrigger(grown, { window: 1000, counter }));
    expect(trigger.decide(grown).level).toBe('soft');
    expect(counted).toBe(3);
  });
});
