import { fingerprintContent } from '../core/fingerprint.ts';
import type { RetrievalCandidate } from './candidate.ts';

/** Test helper: a candidate with defaults (origin `memory`, score 0.5, content fingerprint). */
export function makeCandidate(
  overrides: Partial<RetrievalCandidate> & { id: string; content: string },
): RetrievalCandidate {
  return {
    origin: 'memory',
    vectorScore: 0.5,
    fingerprint: fingerprintContent(overrides.content),
    metadata: {},
    ...overrides,
  };
}
