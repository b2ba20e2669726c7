import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createSessionWatcher } from '../workspace/watch-sessions.ts';
import type { Workspace } from '../workspace/workspace.ts';

/** Options of {@link notifyResourceChanges}. */
export interface NotifyResourceChangesOptions {
  server: McpServer;
  workspace: Workspace;
  sessionId: string;
  /** The URIs `resources/list` answers now (files and blocks), in any order. */
  listUris: () => Promise<string[]>;
  /** The file a resource URI shows (`ctxloom://files/a.md`, `ctxloom://blocks/a.md/…`, `ctxloom://outline/a.md`); `undefined` for the preview. */
  fileOf: (uri: string) => string | undefined;
  /** Changes within this many milliseconds are one notification. Default 40. */
  settleMs?: number;
}

/**
 * Watches the session folder and the global files (`fs.watch`, the notebook's watcher) and
 * tells the client what it can see change, whoever changed it (an editor, the notebook, a tool
 * of this server): `notifications/resources/list_changed` when the listed resources differ
 * (a file created, deleted or renamed, a block added or removed), and
 * `notifications/resources/updated` for each subscribed resource whose file changed (the
 * preview on any change). Adds the `resources.subscribe` capability and its two requests;
 * call before `connect` (which then waits for the first listing). Returns the function that stops watching (also run when the
 * server closes).
 */
export function notifyResourceChanges(options: NotifyResourceChangesOptions): () => void {
  const { server } = options;
  const subscribed = new Set<string>();
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  let listed: Promise<string> = options.listUris().then(signature, () => '');
  let queue = Promise.resolve();
  const watcher = createSessionWatcher({
    workspace: options.workspace,
    globalFiles: options.workspace.globalFiles,
    ...(options.settleMs === undefined ? {} : { settleMs: options.settleMs }),
  });
  const onChange = (paths: readonly string[]) => {
    // One batch at a time, in order, so a list is never compared with an older one.
    queue = queue.then(async () => {
      if (!server.isConnected()) return;
      const before = await listed;
      listed = options.listUris().then(signature, () => before);
      if ((await listed) !== before) await server.sendResourceListChanged();
      for (const uri of subscribed) {
        const file = options.fileOf(uri);
        if (file === undefined || paths.includes(file)) await server.server.sendResourceUpdated({ uri });
      }
    });
    queue = queue.catch(() => undefined);
  };
  const stop = watcher.subscribe(options.sessionId, (change) => onChange(change.paths));
  // The first listing is what later ones are compared with: it is taken before a client can
  // connect, so a change made just after connecting is never part of it.
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await listed;
    return connect(transport);
  };
  const previous = server.server.onclose;
  server.server.onclose = () => {
    stop();
    previous?.();
  };
  return stop;
}

function signature(uris: readonly string[]): string {
  return [...uris].sort().join('\n');
}
