import { type CallRecord, toCallRecord } from './call-record.ts';
import type { CompiledContext } from './compile-types.ts';

/** Options of {@link createCallLogWriter}: who makes the calls of one turn, and where records go. */
export interface CallLogWriterOptions {
  /** Id of the user message that started the turn. */
  turnId: string;
  /** The model the calls go to (`openai:gpt-4o-mini`, `offline`, an agent's model id…). */
  model: string;
  /** The agent that makes the calls, in a multi-agent process (`router`, `summarizer`…). Default none. */
  agentId?: string;
  /** Unique id of each record. */
  createId: () => string;
  /** Clock of each record's `at`. */
  now: () => Date;
  /**
   * Where each record goes, in call order: a session store's `appendCall` (a chat turn, the
   * summariser), or the record list an agent node writes to the session's call log in its one
   * patch (a process turn). A synchronous `append` has run when {@link CallLogWriter.log}
   * returns; the promise `log` returns settles after an asynchronous one.
   */
  append: (record: CallRecord) => void | Promise<void>;
}

/** Logs the model calls of one turn, one record per call, before each is sent. */
export interface CallLogWriter {
  /** Makes the record of `compiled` (the call's `step`: 0, then one per tool-loop step) and appends it. */
  log(compiled: Pick<CompiledContext, 'report' | 'messages'>, step: number): Promise<CallRecord>;
}

/**
 * The one writer of the call log: every model call ctxloom sends — a chat turn's steps, an
 * agent node's, the router's and proposer's, the summariser's — is logged through it, so a
 * record has the same fields (`toCallRecord`) whichever path made it and whichever store keeps it.
 * @example
 * const calls = createCallLogWriter({ turnId, model: 'openai:gpt-4o', createId, now, append: (record) => store.appendCall(sessionId, record) });
 * await calls.log(compiled, 0);
 */
export function createCallLogWriter(options: CallLogWriterOptions): CallLogWriter {
  return {
    // Not `async`: a record that cannot be made throws where the call is logged, and a
    // synchronous `append` (a node's record list) has appended when `log` returns.
    log(compiled, step) {
      const record = toCallRecord({
        compiled,
        id: options.createId(),
        turnId: options.turnId,
        step,
        at: options.now(),
        model: options.model,
        ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
      });
      const appended = options.append(record);
      return appended instanceof Promise ? appended.then(() => record) : Promise.resolve(record);
    },
  };
}
