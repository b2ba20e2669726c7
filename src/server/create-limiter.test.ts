import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter } from './create-limiter.ts';

describe('createLimiter', () => {
  it('never runs more tasks than its concurrency and runs every task once, in arrival order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 30 }),
        async (limit, delays) => {
          const limiter = createLimiter(limit);
          let running = 0;
          let peak = 0;
          const started: number[] = [];
          const results = await Promise.all(
            delays.map((delay, index) =>
              limiter.run(async () => {
                started.push(index);
                running++;
                peak = Math.max(peak, running);
                await new Promise((resolve) => setTimeout(resolve, delay));
                running--;
                return index;
              }),
            ),
          );
          expect(peak).toBeLessThanOrEqual(limit);
          expect(results).toEqual(delays.map((_, index) => index));
          expect(started).toEqual(delays.map((_, index) => index));
          expect(limiter.active).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('releases its slot when a task throws', async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
  });
});
