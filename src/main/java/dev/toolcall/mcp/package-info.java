/**
 * MCP client adapter, on the optional {@code io.modelcontextprotocol.sdk:mcp-core} and {@code mcp-json-jackson2}
 * dependencies (2.1.x): {@link dev.toolcall.mcp.McpToolSource} makes the tools of an MCP server run under the
 * lifecycle and keeps a runtime's tool set in step with the server's. The core never imports this package.
 */
package dev.toolcall.mcp;
