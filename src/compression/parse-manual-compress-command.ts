import type { CompressScope } from './compression-state.ts';

/** A recognised `/compress` command. */
export interface ManualCompressCommand {
  type: 'compress';
  scope: CompressScope;
}

const COMMAND = /^\/compress(?:[ \t]+(requirement|artifacts))?$/u;

/**
 * Recognises the manual compression commands of seed 004 §10.1 — exactly `/compress` (all),
 * `/compress requirement` and `/compress artifacts`, with surrounding whitespace ignored.
 * Anything else, including prose that mentions compressing ("please compress the table"),
 * returns `undefined`, so a real requirement is never mistaken for a command.
 */
export function parseManualCompressCommand(text: string): ManualCompressCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (match === null) return undefined;
  const argument = match[1];
  return {
    type: 'compress',
    scope: argument === 'requirement' ? 'requirement' : argument === 'artifacts' ? 'artifacts' : 'all',
  };
}
