export { McpTools, type McpReads, type McpOptions, type McpHttpAnswer } from './mcp.server.js';
