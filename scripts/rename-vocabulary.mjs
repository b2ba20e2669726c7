#!/usr/bin/env node
/**
 * The mechanical rename of decision 033 ("one word per concept"): curation is no longer called
 * "memory", the StateBuilder's history module is `messages`, in-process stores are `InMemory`.
 * Idempotent: run it again on a branch made before the rename to carry new uses over
 * (`node scripts/rename-vocabulary.mjs`, then `npm run typecheck`).
 *
 * Kept as they are, on purpose: the file name `memory.json`, the tool name `dismiss_memory`,
 * the `metadata.memory` key of placeholder messages (stored in call logs), the long-term memory
 * store of `ctxloom/sources`, LangGraph's `MemorySaver`, SQLite's `:memory:`, the UI's
 * "Dismiss from memory" labels, `docs/spec.md` (the specification's own words) and the
 * decision records (history).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

const moves = [
  ['src/workspace/memory/memory-event.ts', 'src/workspace/curation/curation-event.ts'],
  ['src/workspace/memory/apply-memory-curation.ts', 'src/workspace/curation/apply-curation.ts'],
  ['src/workspace/memory/apply-memory-curation.test.ts', 'src/workspace/curation/apply-curation.test.ts'],
  ['src/cli/commands/memory.ts', 'src/cli/commands/curation.ts'],
  ['src/state/modules/memory-module.ts', 'src/state/modules/messages-module.ts'],
];
for (const [from, to] of moves) {
  if (!existsSync(`${root}${from}`)) continue;
  mkdirSync(dirname(`${root}${to}`), { recursive: true });
  git('mv', from, to);
}

/** [pattern, replacement] applied to every file in scope, in order. */
const everywhere = [
  // curation (seed 003's "memory curation"; glossary: curation)
  [/\bMEMORY_LOG_VERSION\b/g, 'CURATION_LOG_VERSION'],
  [/\bMEMORY_FILE\b/g, 'CURATION_FILE'],
  [/\bMEMORY_HELP\b/g, 'CURATION_HELP'],
  [/\bMemoryEventInput\b/g, 'CurationEventInput'],
  [/\bMemoryEvent\b/g, 'CurationEvent'],
  [/\bMemoryLog\b/g, 'CurationLog'],
  [/\bMemoryStatus\b/g, 'CurationStatus'],
  [/\bMessageMemory\b/g, 'MessageCuration'],
  [/\bmemoryLogSchema\b/g, 'curationLogSchema'],
  [/\bmemoryEventSchema\b/g, 'curationEventSchema'],
  [/\bfoldMemoryEvents\b/g, 'foldCurationEvents'],
  [/\bapplyMemoryCuration\b/g, 'applyCuration'],
  [/\breadMemoryLog\b/g, 'readCurationLog'],
  [/\bparseMemoryLog\b/g, 'parseCurationLog'],
  [/\brecordMemoryEvent(s?)\b/g, 'recordCurationEvent$1'],
  [/\brunMemory\b/g, 'runCuration'],
  [/\bmergeMemory\b/g, 'mergeCuration'],
  [/\bmemoryBody\b/g, 'curationBody'],
  [/memory\/memory-event\.ts/g, 'curation/curation-event.ts'],
  [/memory\/apply-memory-curation/g, 'curation/apply-curation'],
  [/\bmemory-event\.ts/g, 'curation-event.ts'],
  [/\bapply-memory-curation\b/g, 'apply-curation'],
  [/\bworkspace\/memory\b/g, 'workspace/curation'],
  [/commands\/memory\.ts/g, 'commands/curation.ts'],
  [/\b[Mm]emory[- ]curation\b/g, (word) => (word[0] === 'M' ? 'Curation' : 'curation')],
  [/\bmemory (log|batch|request|states?|placeholders)\b/g, 'curation $1'],
  [/\bmemory: state\.curation\b/g, 'curation: state.curation'],
  // the HTTP route and the CLI command
  [/(\/api\/sessions\/[^\s'"`]*?)\/memory\b/g, '$1/curation'],
  [/(\$\{base\(id\)\})\/memory\b/g, '$1/curation'],
  [/apiUrl\('\/memory'\)/g, "apiUrl('/curation')"],
  [/\bPOST \/memory\b/g, 'POST /curation'],
  [/\bctxloom memory\b/g, 'ctxloom curation'],
  [/\bctxloom -- memory\b/g, 'ctxloom -- curation'],
  [/main\(\['memory'/g, "main(['curation'"],
  [/'mcp', 'memory'\]/g, "'mcp', 'curation']"],
  // the StateBuilder's history module (Blackboard `messages`)
  [/\bMemoryModule\b/g, 'MessagesModule'],
  [/modules\/memory-module\b/g, 'modules/messages-module'],
  [/\.memory\.(append|replace|snapshot|acceptInput|hasProcessed)\b/g, '.messages.$1'],
  // in-process implementations
  [/\bcreateMemoryArtifactStore\b/g, 'createInMemoryArtifactStore'],
  [/\bMemoryArtifactStoreOptions\b/g, 'InMemoryArtifactStoreOptions'],
  [/\bcreateMemoryCompressionStore\b/g, 'createInMemoryCompressionStore'],
];

/** Rules for some files only: there every bare `memory` word means curation or the module. */
const curationWord = [/(?<![\w.:/-])memory\b(?!\.json)/g, 'curation'];
const scoped = [
  [
    [
      'src/workspace/compile/load-session.ts',
      'src/workspace/compile/format-history.ts',
      'src/workspace/compile/compile-workspace-context.ts',
      'src/workspace/compile/stages.test.ts',
      'src/session/compile-session.ts',
      'src/session/file-session-store.ts',
      'src/stream/to-ui-messages.ts',
      'src/stream/to-stored-messages.test.ts',
      'src/server/routes/session-routes.ts',
      'web/src/message-text.tsx',
      'web/src/message-view.tsx',
      'web/src/report-view.tsx',
      'web/src/context-preview.tsx',
    ],
    [
      curationWord,
      [/\b(options|props|loaded)\.memory\b/g, '$1.curation'],
      [/\.\.\.memory\b/g, '...curation'],
      [/\bmemoryOf\b/g, 'curationOf'],
    ],
  ],
  [
    ['web/src/api.ts', 'web/src/chat-panel.tsx'],
    [
      [/\basync memory\(/g, 'async curate('],
      [/\bapi\.memory\(/g, 'api.curate('],
    ],
  ],
  [['src/cli/main.ts'], [[/^ {2}memory: async/gm, '  curation: async']]],
  [
    ['src/state/state-builder.ts'],
    [
      [/readonly memory: MessagesModule/g, 'readonly messages: MessagesModule'],
      [/this\.memory = /g, 'this.messages = '],
    ],
  ],
  [['src/state/module-fields.ts'], [[/^ {2}memory: \['messages'/gm, "  messages: ['messages'"]]],
  [['src/state/types.ts'], [[/\/\/ memory$/gm, '// messages']]],
  [
    [
      'src/state/patch-buffer.ts',
      'src/runtime/agents/node-factory.ts',
      'src/runtime/session/submit-input.ts',
      'docs/state.md',
    ],
    [[/(?<![\w.])memory\.(append|replace|acceptInput|snapshot)\b/g, 'messages.$1']],
  ],
  [['docs/state.md'], [[/^\| memory \| `messages`/gm, '| messages | `messages`']]],
];

const extensions = /\.(ts|tsx|mjs|md)$/;
const skip = (file) =>
  file.startsWith('docs/decisions/') || file === 'docs/spec.md' || file === 'scripts/rename-vocabulary.mjs';
const files = git('ls-files')
  .split('\n')
  .filter((file) => extensions.test(file) && !skip(file) && existsSync(`${root}${file}`));

let changed = 0;
for (const file of files) {
  const before = readFileSync(`${root}${file}`, 'utf8');
  let text = before;
  for (const [pattern, replacement] of everywhere) text = text.replace(pattern, replacement);
  for (const [only, rules] of scoped)
    if (only.includes(file))
      for (const [pattern, replacement] of rules) text = text.replace(pattern, replacement);
  if (text !== before) {
    writeFileSync(`${root}${file}`, text);
    changed += 1;
  }
}
console.log(`${changed} files changed`);
