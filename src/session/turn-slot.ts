import { CtxloomError } from '../core/index.ts';
import type { Turn, TurnInput } from './session-engine.ts';

/**
 * Runs a turn's own work in the caller's `slot` (see {@link TurnInput.slot}), exactly once: a
 * slot that ran it twice would start a second turn with the same question, one that resolved
 * without running it would leave the session held by no turn.
 */
export async function inSlot(input: TurnInput, start: () => Promise<Turn>): Promise<Turn> {
  if (input.slot === undefined) return start();
  let started: Promise<Turn> | undefined;
  const turn = await input.slot(() => {
    if (started !== undefined)
      return Promise.reject(
        new CtxloomError({ code: 'invalid-argument', message: 'slot ran the turn twice', path: 'slot' }),
      );
    started = start();
    return started;
  });
  if (started === undefined || turn !== (await started))
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'slot resolved without the turn its work started',
      path: 'slot',
    });
  return turn;
}
