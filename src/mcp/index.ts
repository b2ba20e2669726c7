export { createWorkspaceMcpServer, type WorkspaceMcpServerOptions } from './create-workspace-mcp-server.ts';
