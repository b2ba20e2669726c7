// Child process of the crash test: chats until killed. submitInput first finishes a run a
// previous kill left unfinished. Prints `ack <n>` once input n's turn has completed.
import { submitInput } from '../../src/runtime/session/submit-input.ts';
import { MAX_TURNS, openChat } from './chat-graph.ts';

const [path = '', fromArgument = '0'] = process.argv.slice(2);
const { graph, config } = openChat(path);
process.stdout.write('ready\n');
for (let turn = Number(fromArgument); turn < MAX_TURNS; turn += 1) {
  const input = { inputId: `in-${turn}`, content: `message ${turn}` };
  await submitInput({ graph, config, input, session: { namespace: 'crash', sessionId: 's' } });
  process.stdout.write(`ack ${turn}\n`);
}
