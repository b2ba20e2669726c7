import { CtxloomError } from '../../core/errors.ts';

const CHOICES = {
  durability: ['full', 'normal'],
  snapshots: ['difference', 'reference'],
  compression: ['deflate', 'none'],
} as const;

/**
 * Throws `invalid-argument`, naming the option, when a saver option that takes one of a few
 * words has another (`durability: 'fast'`, `snapshots: 'references'`), so a typo is not taken
 * as the default. Called by both savers' constructors, before anything is opened.
 */
export function assertSaverOptions(options: {
  durability?: unknown;
  snapshots?: unknown;
  compression?: unknown;
}): void {
  for (const [option, choices] of Object.entries(CHOICES)) {
    const value = options[option as keyof typeof CHOICES];
    if (value !== undefined && !(choices as readonly unknown[]).includes(value))
      throw new CtxloomError({
        code: 'invalid-argument',
        message: `${option} must be ${choices.map((choice) => `"${choice}"`).join(' or ')}, got ${JSON.stringify(value) ?? String(value)}`,
        path: option,
      });
  }
}

/** The error of a saver used after `close()`: its connection or pool is gone. */
export function closedSaverError(): CtxloomError {
  return new CtxloomError({
    code: 'storage-error',
    message: 'the checkpoint saver is closed; create a new one to use the store again',
  });
}
