import { DefaultChatTransport, readUIMessageStream } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotebookUIMessage } from '../stream/index.ts';
import { readMessages } from '../workspace/index.ts';
import { createTestNotebook } from './test-workspace.test-support.ts';

type Notebook = Awaited<ReturnType<typeof createTestNotebook>>;
let notebook: Notebook;
beforeEach(async () => {
  notebook = await createTestNotebook();
});
afterEach(() => notebook.cleanup());

/** The AI SDK's own client transport, its fetch routed into the app (no port). */
function transport() {
  return new DefaultChatTransport<NotebookUIMessage>({
    api: 'http://localhost/api/sessions/raft-consensus/chat',
    fetch: async (input, init) =>
      notebook.app.request(input instanceof Request ? input : String(input), init),
  });
}

async function send(text: string, id: string): Promise<NotebookUIMessage[]> {
  const stream = await transport().sendMessages({
    trigger: 'submit-message',
    chatId: 'raft-consensus',
    messageId: undefined,
    abortSignal: undefined,
    messages: [{ id, role: 'user', parts: [{ type: 'text', text }] }],
  });
  const snapshots: NotebookUIMessage[] = [];
  for await (const message of readUIMessageStream<NotebookUIMessage>({ stream, terminateOnError: true })) {
    snapshots.push(structuredClone(message));
  }
  return snapshots;
}

describe('chat stream protocol with the AI SDK client', () => {
  it('delivers the context report, streamed text and a finished tool call to DefaultChatTransport', async () => {
    const snapshots = await send('please read milestones.md', 'protocol-1');
    expect(snapshots.length).toBeGreaterThan(3);
    const final = snapshots.at(-1)!;
    expect(final.role).toBe('assistant');
    const report = final.parts.find((part) => part.type === 'data-context-report');
    expect(report?.type === 'data-context-report' && report.data.report.totalTokens).toBeGreaterThan(0);
    expect(report?.type === 'data-context-report' && report.data.model).toEqual({
      spec: 'offline',
      offline: true,
    });
    const tool = final.parts.find((part) => part.type === 'tool-read_file');
    expect(tool).toMatchObject({ state: 'output-available', input: { path: 'milestones.md' } });
    expect(tool?.type === 'tool-read_file' && String(tool.output)).toContain('Raft 学习里程碑');
    const text = final.parts
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join('');
    expect(text).toContain('[offline model');
    // Text arrived in several deltas: an early snapshot holds a strict prefix of the final text.
    const early = snapshots.find((snapshot) => snapshot.parts.some((part) => part.type === 'text'));
    const earlyText = early?.parts.find((part) => part.type === 'text');
    expect(earlyText?.type === 'text' && earlyText.text.length).toBeLessThan(text.length);
  });

  it('stores what the client accumulated: the same text and tool result as messages.json entries', async () => {
    const snapshots = await send('please read milestones.md', 'protocol-2');
    const final = snapshots.at(-1)!;
    const stored = await readMessages(notebook.workspace.session('raft-consensus'));
    const turn = stored.filter((message) => message.metadata?.uiMessageId === final.id);
    const storedText = turn
      .filter((message) => message.role === 'assistant')
      .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
      .map((part) => (part.type === 'text' ? part.text : ''))
      .join('');
    const clientText = final.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(storedText).toBe(clientText);
    expect(turn.find((message) => message.role === 'tool')?.content).toEqual([
      expect.objectContaining({
        type: 'tool-result',
        toolName: 'read_file',
        output: expect.objectContaining({ type: 'text' }),
      }),
    ]);
  });
});
