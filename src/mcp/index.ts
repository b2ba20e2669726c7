export {
  blockResourceUri,
  createWorkspaceMcpServer,
  fileResourceUri,
  type WorkspaceMcpServerOptions,
} from './create-workspace-mcp-server.ts';
