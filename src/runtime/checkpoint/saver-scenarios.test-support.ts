import { DatabaseSync } from 'node:sqlite';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { DeltaValue, messagesDeltaReducer, StateGraph, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';
import type { SqlCheckpointSaver } from './sql-checkpoint-saver.ts';

/** Deterministic, barely compressible words, so compression cannot hide what a store repeats. */
export function prose(seed: number, characters: number): string {
  let state = seed * 2654435761 + 1;
  const words: string[] = [];
  let length = 0;
  while (length < characters) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = state.toString(36);
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

/** A two-node chat over a delta `messages` channel and a plain counter. */
export function chatGraph(snapshotFrequency: number) {
  const State = new StateSchema({
    messages: new DeltaValue(
      z.array(z.custom<BaseMessage>()).default(() => []),
      {
        reducer: messagesDeltaReducer as (state: BaseMessage[], writes: BaseMessage[][]) => BaseMessage[],
        snapshotFrequency,
      },
    ),
    turns: z.number().default(0),
  });
  return new StateGraph(State)
    .addNode('reply', (state) => ({
      messages: [
        new AIMessage({
          content: `reply ${state.messages.length} ${prose(state.messages.length, 200)}`,
          id: `ai-${state.messages.length}`,
        }),
      ],
    }))
    .addNode('count', (state) => ({ turns: state.turns + 1 }))
    .addEdge('__start__', 'reply')
    .addEdge('reply', 'count')
    .addEdge('count', '__end__');
}

/** `turns` turns of the chat on `threadId`: a question in, a reply and a count out. */
export async function chat(
  saver: SqlCheckpointSaver,
  threadId: string,
  turns: number,
  { snapshotFrequency = 1000, firstTurn = 0 } = {},
) {
  const app = chatGraph(snapshotFrequency).compile({ checkpointer: saver });
  const config = { configurable: { thread_id: threadId } };
  for (let turn = firstTurn; turn < firstTurn + turns; turn += 1) {
    await app.invoke(
      {
        messages: [
          new HumanMessage({
            content: `question ${turn} ${prose(100_000 + turn, 200)}`,
            id: `human-${threadId}-${turn}`,
          }),
        ],
      },
      config,
    );
  }
  return { app, config };
}

/** How many checkpoints `saver` lists for the thread. */
export async function count(saver: SqlCheckpointSaver, threadId: string): Promise<number> {
  let total = 0;
  for await (const _ of saver.list({ configurable: { thread_id: threadId } })) total += 1;
  return total;
}

/** Checkpoint records of a SQLite saver's file by their format number (a record's first byte). */
export function sqliteRecordFormats(path: string): Record<string, number> {
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = database
      .prepare(
        `SELECT unicode(CAST(substr(data, 1, 1) AS TEXT)) AS format, COUNT(*) AS n
           FROM ctxloom_cp_checkpoints WHERE thread >= 0 AND data IS NOT NULL GROUP BY 1`,
      )
      .all() as { format: number; n: number }[];
    return Object.fromEntries(rows.map((row) => [String(row.format), Number(row.n)]));
  } finally {
    database.close();
  }
}
