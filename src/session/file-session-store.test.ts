import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSessionStoreConformance } from '../testing/index.ts';
import { openWorkspace } from '../workspace/index.ts';
import { createFileSessionStore } from './file-session-store.ts';

let counter = 0;
const root = await mkdtemp(join(tmpdir(), 'ctxloom-file-store-'));
const workspace = openWorkspace({ root });

describeSessionStoreConformance('files', () => createFileSessionStore({ workspace }), {
  async newSession() {
    counter += 1;
    const id = `session-${counter}`;
    await workspace.sandbox.writeText(`${id}/context-config.json`, '{}\n');
    return id;
  },
});
