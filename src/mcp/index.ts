export { createWorkspaceMcpServer, type WorkspaceMcpServerOptions } from './create-workspace-mcp-server.ts';
export {
  LimitedStdioServerTransport,
  type LimitedStdioServerTransportOptions,
  MAX_MCP_MESSAGE_BYTES,
} from './limited-stdio-server-transport.ts';
