/**
 * A child process of the thread-writers test. Roles:
 * - `writer <kind> <target> <thread> <name> <ms>`: submits inputs `<name>-<n>` to the real
 *   sequential process on `<thread>` for `<ms>`; prints `run <input>` when the model is
 *   called for an input, `ack <input>` when submitInput accepted it, `busy` when another
 *   writer held the thread (the input is retried);
 * - `pruner <kind> <target> <thread> <name> <ms>`: `prune({ keepLast: 5 })` on the thread in
 *   a loop, printing `pruned <n>`.
 * `<kind>` is `sqlite` (target: file path) or `postgres` (target: schema). Exits 0 when the
 * time is up; any other error is printed and exits 1.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { defineAgent } from '../../src/runtime/agents/define-agent.ts';
import { PostgresSaver } from '../../src/runtime/checkpoint/postgres-saver.ts';
import { SqliteSaver } from '../../src/runtime/checkpoint/sqlite-saver.ts';
import { ThreadBusyError } from '../../src/runtime/checkpoint/thread-lease.ts';
import { textModel } from '../../src/runtime/processes/mock-model.test-support.ts';
import { createSequentialProcess } from '../../src/runtime/processes/sequential.ts';
import { submitInput } from '../../src/runtime/session/submit-input.ts';
import { createBlackboard } from '../../src/state/index.ts';
import { createCharCounter } from '../../src/testing/index.ts';

/** Snapshots every 4 updates, so prune has old checkpoints it may delete within seconds. */
export const TEST_BLACKBOARD = createBlackboard({ snapshotFrequency: 4 });

const [role, kind, target, thread, name, ms] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
];
const url = process.env.CTXLOOM_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const saver =
  kind === 'sqlite'
    ? new SqliteSaver({ path: target, durability: 'normal', busyTimeoutMs: 20_000 })
    : PostgresSaver.fromConnString(url, { schema: target });
await saver.setup();
const deadline = Date.now() + Number(ms);
// On a loaded machine the time budget may end before there is anything to prune: writers go
// on until each has a few acknowledged inputs, the pruner until it has deleted something,
// both within a hard stop (then the test fails, saying what is missing).
const hardStop = deadline + 10 * Number(ms);
const MIN_ACKS = 6;
const say = (line: string) => process.stdout.write(`${line}\n`);

try {
  if (role === 'pruner') {
    let deleted = 0;
    while (Date.now() < deadline || (deleted === 0 && Date.now() < hardStop)) {
      const result = await saver.prune({ keepLast: 5, threadId: thread });
      deleted += result.deletedCheckpoints;
      say(`pruned ${result.deletedCheckpoints}`);
      await sleep(20 + Math.floor(Math.random() * 40));
    }
  } else {
    const model = textModel((prompt) => {
      const input =
        prompt
          .split('\n')
          .findLast((line) => line.startsWith('user: '))
          ?.slice(6) ?? '';
      say(`run ${input}`);
      return `answer to ${input}`;
    });
    const graph = createSequentialProcess({
      counter: createCharCounter(),
      blackboard: TEST_BLACKBOARD,
      agents: [defineAgent({ id: 'helper', systemPrompt: 'Answer.', model })],
    }).compile({ checkpointer: saver });
    const config = { configurable: { thread_id: thread } };
    let next = 0;
    let acks = 0;
    while (Date.now() < deadline || (acks < MIN_ACKS && Date.now() < hardStop)) {
      const inputId = `${name}-${next}`;
      try {
        const result = await submitInput({
          graph,
          config,
          input: { inputId, content: inputId },
          session: { namespace: 'test', sessionId: 's' },
          lease: { waitMs: 1_000 },
        });
        if (result.accepted) {
          acks += 1;
          say(`ack ${inputId}`);
        }
        next += 1;
      } catch (error) {
        if (!(error instanceof ThreadBusyError)) throw error;
        say('busy');
      }
      await sleep(Math.floor(Math.random() * 15));
    }
  }
  await saver.close();
  process.exit(0);
} catch (error) {
  process.stderr.write(
    `${role} ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
