import { CtxloomError } from '../../core/errors.ts';

/** What a {@link CheckpointVersionError} found too new: the table layout, or the records in it. */
export type CheckpointVersionKind = 'layout' | 'record-format';

/**
 * A checkpoint database written by a newer ctxloom than this one: its table layout, or the
 * record format it says its rows may hold, is above what this version reads. Thrown by a
 * saver's `setup` (every method runs it first) before any read or write, and by a read that
 * meets a record of an unknown, newer format. Code `storage-error`; `details` carries `kind`,
 * `stored` and `supported`. Upgrade this process (docs/state.md, "Versions").
 */
export class CheckpointVersionError extends CtxloomError {
  readonly kind: CheckpointVersionKind;
  /** The version the database holds. */
  readonly stored: number;
  /** The newest version this ctxloom reads. */
  readonly supported: number;

  constructor(options: { kind: CheckpointVersionKind; stored: number; supported: number; where: string }) {
    const what = options.kind === 'layout' ? 'table layout' : 'checkpoint record format';
    super({
      code: 'storage-error',
      message: `${options.where} was written by a newer ctxloom: ${what} ${options.stored}, and this ctxloom reads ${what} ${options.supported} at most — upgrade this process before it reads or writes there`,
      path: options.where,
      details: {
        reason: 'newer-version',
        kind: options.kind,
        stored: options.stored,
        supported: options.supported,
      },
    });
    this.kind = options.kind;
    this.stored = options.stored;
    this.supported = options.supported;
  }
}
