import { conversationMessages, type Message } from '../../core/index.ts';
import type { ContextConfig } from '../config/context-config-schema.ts';
import { applyCuration } from '../curation/apply-curation.ts';
import { type CurationEvent, foldCurationEvents } from '../curation/curation-event.ts';
import type { ResolvedReference } from '../references/resolve-reference.ts';

/** Options of {@link formatHistory}. */
export interface FormatHistoryOptions {
  messages: readonly Message[];
  curation: readonly CurationEvent[];
  chatHistory: ContextConfig['chatHistory'];
}

/**
 * Stage 4a of the workspace compiler (seed 003 "Format"): the stored messages as the model
 * will see them. Chat commands (`metadata.command`, e.g. `/compress` and its answer) and failed
 * turns (the question and its error record, `metadata.turnError`) are not conversation and
 * never reach the model (core's `conversationMessages`). Every strategy replaces dismissed
 * and excluded messages by placeholders (decision 051: a curation event is an explicit act of
 * the user or the model, and the strategy says how much history, not whether to honour it);
 * the stored record itself is never changed. Nothing is cut here: `last-n`'s window and
 * the token budget are applied by the core pipeline (`maxHistoryMessages`), which reports
 * what they leave out. Pure.
 */
export function formatHistory(options: FormatHistoryOptions): Message[] {
  const { placeholderLocale } = options.chatHistory;
  // Commands typed in the chat (`/compress`) and failed turns are for the reader, not the model.
  const conversation = conversationMessages(options.messages);
  return applyCuration(conversation, foldCurationEvents(options.curation), placeholderLocale);
}

/** Options of {@link buildQueryMessage}. */
export interface BuildQueryMessageOptions {
  /** The user message text with references merged. */
  text: string;
  /** Message id; default `query-<n>` where n is the history length + 1. */
  id: string;
  references: readonly ResolvedReference[];
  /** Keys of the manifest references this message carries (recorded so they are not attached again). */
  manifestReferences?: readonly string[];
  /** `once` injections delivered with this message (recorded so they are not sent again). */
  injections: readonly string[];
}

/**
 * Stage 4b: the current user message, last in the list, carrying the provenance of its
 * references, the keys of the manifest references it carries and of delivered `once`
 * injections in `metadata` (storing the message marks both delivered). Pure.
 */
export function buildQueryMessage(options: BuildQueryMessageOptions): Message {
  const metadata: Record<string, unknown> = {};
  if (options.references.length > 0) {
    metadata.references = options.references.map((reference) => ({
      path: reference.path,
      startLine: reference.startLine,
      endLine: reference.endLine,
      ...(reference.blockId === undefined ? {} : { block: reference.blockId }),
    }));
  }
  if (options.manifestReferences !== undefined && options.manifestReferences.length > 0)
    metadata.manifestReferences = [...options.manifestReferences];
  if (options.injections.length > 0) metadata.injections = [...options.injections];
  return { id: options.id, role: 'user', content: options.text, metadata };
}
