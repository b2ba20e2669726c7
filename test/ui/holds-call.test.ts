import { describe, expect, it } from 'vitest';
import type { NotebookUIMessage } from '../../web/src/api.ts';
import { holdsCall } from '../../web/src/holds-call.ts';

const summary = { totalTokens: 10, inputBudget: 100, references: [] };

/** A stored answer: its call in the metadata, as the history reload gives it. */
const stored: NotebookUIMessage = {
  id: 'm2',
  role: 'assistant',
  metadata: { context: { ...summary, callId: 'call-1', callIds: ['call-1', 'call-2'] } },
  parts: [{ type: 'text', text: 'An answer.' }],
};

/** A streaming answer: its call in the context-report part, no metadata yet. */
const streaming = {
  id: 'm4',
  role: 'assistant',
  parts: [
    {
      type: 'data-context-report',
      data: {
        report: {},
        warnings: [],
        references: [],
        model: { spec: 'offline', offline: true },
        callId: 'call-3',
      },
    },
    { type: 'text', text: 'An answer…' },
  ],
} as unknown as NotebookUIMessage;

const question: NotebookUIMessage = {
  id: 'm1',
  role: 'user',
  parts: [{ type: 'text', text: 'A question?' }],
};

describe('holdsCall', () => {
  it('is true for the message whose chip opens the call, from its metadata or its report part', () => {
    expect(holdsCall(stored, 'call-1')).toBe(true);
    expect(holdsCall(streaming, 'call-3')).toBe(true);
  });

  it('is false for every other message, and when no call is open', () => {
    expect(holdsCall(stored, 'call-3')).toBe(false);
    expect(holdsCall(streaming, 'call-1')).toBe(false);
    expect(holdsCall(question, 'call-1')).toBe(false);
    expect(holdsCall(stored, undefined)).toBe(false);
  });

  it('is false for a later step of the turn: the chip names the turn’s first call', () => {
    expect(holdsCall(stored, 'call-2')).toBe(false);
  });
});
