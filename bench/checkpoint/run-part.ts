/**
 * Runs part of the real-process section of the checkpoint suite and prints its metrics as
 * JSON (for running parts in parallel on a shared machine):
 * `BENCH_REAL_SELECT=sequential.ctxloom-sqlite BENCH_CHECKPOINT_TURNS=200,1000 npx node --conditions=ctxloom-source bench/checkpoint/run-part.ts`.
 */
import { loadLocomoMessages } from './locomo-messages.ts';
import { MAX_TURNS, runRealProcesses } from './real-process-suite.ts';

const path = process.env.CTXLOOM_LOCOMO_PATH;
const turns = MAX_TURNS;
const texts = await loadLocomoMessages({
  count: 2 * turns,
  charsPerMessage: 500,
  cycle: true,
  ...(path === undefined ? {} : { path }),
});
const result = await runRealProcesses({ texts, log: (message) => console.error(message) });
console.log(JSON.stringify(result, null, 1));
