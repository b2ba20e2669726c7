import { describe, expect, it } from 'vitest';
import { createCompressionState, formatThreadId } from '../../compression/index.ts';
import { compileContext } from '../../core/compile.ts';
import type { CompileRequest } from '../../core/compile-types.ts';
import { CtxloomError } from '../../core/errors.ts';
import type { Message } from '../../core/message.ts';
import { StateBuilder } from '../../state/index.ts';
import { createCharCounter } from '../../testing/index.ts';
import { defineAgent } from '../agents/define-agent.ts';
import { textModel } from '../processes/mock-model.test-support.ts';
import { createCompressionBlackboard } from './compression-blackboard.ts';
import { createCompressionCompactStage } from './compression-compact-stage.ts';
import { CompressionStateModule } from './compression-state-module.ts';

const counter = createCharCounter();
const blackboard = createCompressionBlackboard();
const threadId = formatThreadId({ app: 'etl', userId: 'u', sessionId: 's' });

function fixture(options: { window: number; historyChars: number; queryChars: number }) {
  const sb = new StateBuilder({}, { blackboard });
  new CompressionStateModule(sb).commit(createCompressionState({ threadId }), { expectedRevision: null });
  const history: Message[] = Array.from({ length: 20 }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `${index}:${'x'.repeat(options.historyChars)}`,
  }));
  const request: CompileRequest = {
    systemPrompt: 'sys',
    history,
    query: { id: 'q', role: 'user', content: 'q'.repeat(options.queryChars) },
  };
  const agent = defineAgent({
    id: 'a',
    systemPrompt: 'sys',
    model: textModel(() => ''),
    window: options.window,
  });
  let compiles = 0;
  const compile = (next: CompileRequest) => {
    compiles += 1;
    return compileContext(next, { counter, window: options.window, outputReserveRatio: 0 });
  };
  return { sb, request, agent, compile, compiles: () => compiles };
}

describe('createCompressionCompactStage', () => {
  it('compresses once at the soft trigger by moving the persisted history cut', async () => {
    const { sb, request, agent, compile, compiles } = fixture({
      window: 2400,
      historyChars: 80,
      queryChars: 10,
    });
    const stage = createCompressionCompactStage({ counter, keepAfterSoft: 4 });
    const compiled = await stage({ agent, sb, request, compile });
    expect(compiles()).toBe(2);
    expect(new CompressionStateModule(sb).historyFrom()).toBe('m16');
    expect(compiled.messages.map((message) => message.id)).toContain('m19');
    expect(compiled.messages.map((message) => message.id)).not.toContain('m3');
    expect(sb.patch().compression_session).toMatchObject({ historyFromMessageId: 'm16' });
  });

  it('throws over-budget after one compression when the query alone is too large, never looping', async () => {
    const { sb, request, agent, compile, compiles } = fixture({
      window: 500,
      historyChars: 10,
      queryChars: 600,
    });
    const stage = createCompressionCompactStage({ counter });
    await expect(stage({ agent, sb, request, compile })).rejects.toSatisfy((error) =>
      CtxloomError.is(error, 'over-budget'),
    );
    expect(compiles()).toBe(2);
  });
});
