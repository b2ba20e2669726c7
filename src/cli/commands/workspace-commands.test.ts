import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBufferIo } from '../io.ts';
import { main } from '../main.ts';

const example = fileURLToPath(new URL('../../../examples/notebook', import.meta.url));
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ctxloom-cli-'));
  await cp(example, root, { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const capture = (color = false) => createBufferIo({ color, cwd: root });

describe('ctxloom compile', () => {
  it('prints the compiled context as JSON with the report', async () => {
    const run = capture();
    expect(await main(['compile', 'raft-consensus'], run.io)).toBe(0);
    const json = JSON.parse(run.out()) as {
      systemPrompt: string;
      messages: { role: string }[];
      report: { fits: boolean; counter: string };
    };
    expect(json.systemPrompt).toContain('Raft');
    expect(json.messages.at(-1)?.role).toBe('user');
    expect(json.report).toMatchObject({ fits: true, counter: 'o200k_base' });
  });

  it.each([
    ['openai', (value: Record<string, unknown>) => Array.isArray(value.messages)],
    [
      'anthropic',
      (value: Record<string, unknown>) => Array.isArray(value.system) && Array.isArray(value.messages),
    ],
    ['ai-sdk', (value: Record<string, unknown>) => Array.isArray(value.instructions)],
  ])('emits the %s format', async (format, check) => {
    const run = capture();
    expect(await main(['compile', 'raft-consensus', '--format', format], run.io)).toBe(0);
    expect(check(JSON.parse(run.out()) as Record<string, unknown>)).toBe(true);
  });

  it('exits 2 with the command help for an unknown format or a missing argument', async () => {
    const bad = capture();
    expect(await main(['compile', 'raft-consensus', '--format', 'xml'], bad.io)).toBe(2);
    expect(bad.err()).toContain('unknown --format "xml"');
    expect(bad.err()).toContain('Usage: ctxloom compile');
    const missing = capture();
    expect(await main(['compile'], missing.io)).toBe(2);
    const unknownOption = capture();
    expect(await main(['compile', 'raft-consensus', '--frobnicate'], unknownOption.io)).toBe(2);
  });

  it('exits 1 naming the missing folder or reference', async () => {
    const missing = capture();
    expect(await main(['compile', 'nope'], missing.io)).toBe(1);
    expect(missing.err()).toContain('not-found: session folder does not exist (nope)');
    // Its messages.json typed for the folder: said as that, not as a folder that is missing.
    const file = capture();
    expect(await main(['compile', 'raft-consensus/messages.json'], file.io)).toBe(1);
    expect(file.err()).toContain(
      'invalid-argument: the session is a file, not a folder: give the folder that holds messages.json (raft-consensus/messages.json)',
    );
    const reference = capture();
    expect(
      await main(['compile', 'raft-consensus', '--query', '看 [guidance.md#不存在的块]'], reference.io),
    ).toBe(1);
    expect(reference.err()).toMatch(/block "不存在的块" not found in guidance\.md; closest block is/u);
  });
});

describe('ctxloom compile with a broken manifest', () => {
  it('exits 1 naming the file, line, column and JSON path', async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(root, 'broken'), { recursive: true });
    await writeFile(
      join(root, 'broken', 'context-config.json'),
      '{\n  "chatHistory": {\n    "strategy": "everything"\n  }\n}\n',
    );
    const run = capture();
    expect(await main(['compile', 'broken'], run.io)).toBe(1);
    expect(run.err()).toContain('invalid-config');
    expect(run.err()).toContain('context-config.json:3:17 at chatHistory.strategy');
    await writeFile(join(root, 'broken', 'context-config.json'), '{ "query": "hi", }');
    const syntax = capture();
    expect(await main(['compile', 'broken'], syntax.io)).toBe(1);
    expect(syntax.err()).toContain(
      'parse-error: invalid JSON: expected a quoted key (context-config.json:1:18)',
    );
  });
});

describe('ctxloom preview', () => {
  it('shows per-layer token bars, references and messages', async () => {
    const run = capture();
    expect(await main(['preview', 'raft-consensus', '--verbose'], run.io)).toBe(0);
    // The count is of what the call sends (layers, history, query), not of the session's messages.
    const sent = Number(
      /^session raft-consensus · the next call sends (\d+) messages$/mu.exec(run.out())?.[1],
    );
    expect(run.out().split('\nmessages\n')[1]?.trimEnd().split('\n')).toHaveLength(sent);
    expect(run.out()).toMatch(/^history\s+[\d,]+\s+[\d.]+%/mu);
    expect(run.out()).toContain('ground-truth.md:60-64');
    expect(run.out()).not.toContain('\u001b[');
  });

  it('gives the session tools a row, so the rows add up to the used total', async () => {
    const run = capture();
    expect(await main(['preview', 'raft-consensus'], run.io)).toBe(0);
    const lines = run.out().split('\n');
    const used = Number(/^used ([\d,]+) \//mu.exec(run.out())?.[1]?.replace(/,/gu, ''));
    const header = lines.findIndex((line) => line.startsWith('layer '));
    const total = lines.findIndex((line) => line.startsWith('total '));
    const rows = lines.slice(header + 1, total);
    expect(rows.some((line) => /^tools \(\d+\)\s+[\d,]+/u.test(line))).toBe(true);
    const sum = rows.reduce(
      (value, line) => value + Number(/\s{2,}([\d,]+)/u.exec(line)?.[1]?.replace(/,/gu, '') ?? 0),
      0,
    );
    expect(sum).toBe(used);
  });

  it('colours the report on a terminal', async () => {
    const run = capture(true);
    expect(await main(['preview', 'raft-consensus'], run.io)).toBe(0);
    expect(run.out()).toContain('\u001b[');
  });
});

describe('a --store that cannot be opened', () => {
  const STACK = /^\s+at /mu;

  it.each([
    ['a missing folder', 'no/such/dir/x.db', 'not-found', 'its folder does not exist'],
    ['a folder', 'raft-consensus', 'invalid-argument', 'it is a folder, not a database file'],
    ['a JSON file', 'sessions.json', 'invalid-argument', 'the file is not a SQLite database'],
  ])('exits 1 naming %s given to preview and mcp, without a stack', async (_, file, code, why) => {
    const before = await readFile(join(root, 'sessions.json'), 'utf8');
    for (const args of [
      ['preview', 'raft-consensus'],
      ['mcp', '.'],
    ]) {
      const run = capture();
      expect(await main([...args, '--store', `sqlite:${file}`], run.io)).toBe(1);
      expect(run.err()).toBe(
        `ctxloom ${args[0]}: ${code}: cannot open the SQLite database: ${why} (${join(root, file)})\n`,
      );
      expect(run.err()).not.toMatch(STACK);
    }
    expect(await readFile(join(root, 'sessions.json'), 'utf8')).toBe(before);
  });
});

describe('ctxloom mcp', () => {
  it('refuses a --session that is a file or missing, before serving anything', async () => {
    for (const [session, expected] of [
      [
        'sessions.json',
        'ctxloom mcp: invalid-argument: session "sessions.json" is a file, not a session folder',
      ],
      ['raft-consensus/messages.json', 'is a file, not a session folder'],
      ['no-such-session', 'ctxloom mcp: not-found: no session "no-such-session" in the workspace'],
    ]) {
      const run = capture();
      const stdout = new PassThrough();
      // Were a server started, stdin's end would stop it (exit 0) and its output land here.
      Object.assign(run.io, { stdin: Readable.from([]), stdoutStream: stdout });
      expect(await main(['mcp', '.', '--session', session as string], run.io), session).toBe(1);
      expect(run.err()).toContain(expected);
      expect(run.err()).not.toContain('serving');
      expect(stdout.read()).toBeNull();
    }
  });
});

describe('ctxloom blocks', () => {
  it('prints the block tree with ids and line ranges', async () => {
    const run = capture();
    expect(await main(['blocks', 'profile.md'], run.io)).toBe(0);
    expect(run.out()).toMatch(/^ {2}## 学习目标\/已有基础 \[[0-9a-f]{6}\] {2}L20-24$/mu);
    expect(run.out()).toMatch(/^# 基本信息 \[[0-9a-f]{6}\] {2}L1-4 \(section to L14\)$/mu);
  });

  it('counts the lines of the file, a final newline ending the last one, and says "1 line"', async () => {
    for (const [text, count] of [
      ['# 一\n', '1 line'],
      ['# 一', '1 line'],
      ['# 一\n\ntext\n', '3 lines'],
      ['# 一\r\ntext', '2 lines'],
      ['', '0 lines'],
    ]) {
      await writeFile(join(root, 'count.md'), text as string);
      const run = capture();
      expect(await main(['blocks', 'count.md'], run.io), JSON.stringify(text)).toBe(0);
      expect(run.out().split('\n')[0]).toBe(`count.md · ${count}`);
    }
    await rm(join(root, 'count.md'));
  });

  it('writes the sidecar only when asked', async () => {
    const { rm: remove, access } = await import('node:fs/promises');
    await remove(join(root, 'profile.blocks.json'));
    expect(await main(['blocks', 'profile.md'], capture().io)).toBe(0);
    await expect(access(join(root, 'profile.blocks.json'))).rejects.toThrow();
    expect(await main(['blocks', 'profile.md', '--write-ids'], capture().io)).toBe(0);
    const sidecar = JSON.parse(await readFile(join(root, 'profile.blocks.json'), 'utf8')) as {
      blocks: unknown[];
    };
    expect(sidecar.blocks.length).toBe(9);
  });

  it('prints JSON blocks by key path and refuses unsupported files', async () => {
    const run = capture();
    expect(await main(['blocks', 'raft-consensus/context-config.json', '--json'], run.io)).toBe(0);
    expect(JSON.parse(run.out())).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'chatHistory' })]),
    );
    const image = capture();
    expect(await main(['blocks', 'nope.md'], image.io)).toBe(1);
    expect(image.err()).toContain('not-found');
  });
});

describe('ctxloom curation', () => {
  it('excludes and restores a message, auditing both, and the compile follows', async () => {
    const exclude = capture();
    expect(
      await main(['curation', 'raft-consensus', 'exclude', 'm003', '--reason', '测试排除'], exclude.io),
    ).toBe(0);
    const compiled = capture();
    await main(['compile', 'raft-consensus'], compiled.io);
    const messages = (JSON.parse(compiled.out()) as { messages: { id: string; content: unknown }[] })
      .messages;
    expect(messages.find((message) => message.id === 'm003')?.content).toBe(
      '[用户消息 #3 — 用户已排除：测试排除]',
    );
    expect(await main(['curation', 'raft-consensus', 'restore', 'm003'], capture().io)).toBe(0);
    const list = capture();
    expect(await main(['curation', 'raft-consensus'], list.io)).toBe(0);
    expect(list.out()).toMatch(/exclude m003 by user — 测试排除\n.*restore m003 by user/su);
    expect(list.out()).not.toMatch(/^ {2}m003 /mu);
  });

  it('curates a session kept in SQLite checkpoints with --store, leaving memory.json alone', async () => {
    const store = ['--store', 'sqlite:sessions.db'];
    const memoryBefore = await readFile(join(root, 'raft-consensus', 'memory.json'), 'utf8');
    expect(
      await main(['chat', 'raft-consensus', 'What is a term?', '--id', 'q-1', ...store], capture().io),
    ).toBe(0);
    expect(
      await main(
        ['curation', 'raft-consensus', 'exclude', 'q-1', '--reason', '跑题', ...store],
        capture().io,
      ),
    ).toBe(0);
    const list = capture();
    expect(await main(['curation', 'raft-consensus', ...store], list.io)).toBe(0);
    expect(list.out()).toMatch(/^curated messages: 1\n {2}q-1 {2}excluded by user — 跑题\n/u);
    const compiled = capture();
    expect(await main(['compile', 'raft-consensus', ...store], compiled.io)).toBe(0);
    const messages = (JSON.parse(compiled.out()) as { messages: { id: string; content: unknown }[] })
      .messages;
    expect(messages.find((message) => message.id === 'q-1')?.content).toBe(
      '[用户消息 #1 — 用户已排除：跑题]',
    );
    expect(await readFile(join(root, 'raft-consensus', 'memory.json'), 'utf8')).toBe(memoryBefore);
  });

  it('names an unknown message and rejects an unknown action', async () => {
    const unknown = capture();
    expect(await main(['curation', 'raft-consensus', 'exclude', 'm999'], unknown.io)).toBe(1);
    expect(unknown.err()).toContain('no message with id "m999"');
    expect(await main(['curation', 'raft-consensus', 'forget', 'm001'], capture().io)).toBe(2);
  });

  it('names itself in a usage error and refuses arguments it would ignore (exit 2)', async () => {
    const none = capture();
    expect(await main(['curation'], none.io)).toBe(2);
    expect(none.err()).toMatch(/^ctxloom curation: invalid-argument: curation takes <session-dir> /u);
    for (const args of [
      ['raft-consensus', 'list', 'extra'],
      ['raft-consensus', 'exclude', 'm001', 'm002'],
    ]) {
      const run = capture();
      expect(await main(['curation', ...args], run.io), args.join(' ')).toBe(2);
      expect(run.out()).toBe('');
      expect(run.err()).toMatch(/^ctxloom curation: invalid-argument: .*(takes no|one <message-id>)/u);
    }
  });
});

describe('ctxloom help', () => {
  it('lists every command and shows per-command help', async () => {
    const run = capture();
    expect(await main(['--help'], run.io)).toBe(0);
    for (const command of ['demo', 'compile', 'preview', 'blocks', 'mcp', 'curation'])
      expect(run.out()).toContain(`ctxloom ${command}`);
    const topic = capture();
    expect(await main(['mcp', '--help'], topic.io)).toBe(0);
    expect(topic.out()).toContain('ctxloom://blocks/{file}/{id}');
  });
});
