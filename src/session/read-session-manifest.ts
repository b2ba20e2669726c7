import {
  CONTEXT_CONFIG_FILE,
  type ContextConfig,
  parseContextConfig,
  type Workspace,
} from '../workspace/index.ts';

/**
 * A session's manifest (`context-config.json`, read through the session's sandbox; the
 * defaults when the file is missing). A manifest that does not parse throws the `parse-error`
 * or `invalid-config` of {@link parseContextConfig}, naming the file and the JSON path.
 */
export async function readSessionManifest(options: {
  workspace: Workspace;
  sessionId: string;
}): Promise<ContextConfig> {
  const sandbox = options.workspace.session(options.sessionId);
  return (await sandbox.exists(CONTEXT_CONFIG_FILE))
    ? parseContextConfig(await sandbox.readText(CONTEXT_CONFIG_FILE), CONTEXT_CONFIG_FILE)
    : parseContextConfig('{}');
}
