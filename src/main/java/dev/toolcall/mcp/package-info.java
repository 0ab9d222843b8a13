/**
 * MCP client adapter, on the optional {@code io.modelcontextprotocol.sdk:mcp-core} and {@code mcp-json-jackson2}
 * dependencies (2.1.x): {@link dev.toolcall.mcp.McpToolSource} makes the tools of an MCP server run under the
 * lifecycle and keeps a runtime's tool set in step with the server's.
 *
 * <p>The rest of the package is package-private: the transport decorator that sends {@code notifications/cancelled}
 * (the SDK's client cannot), the mapping of server tools to definitions, and of results to {@code ToolContent}.
 * What a server does wrong ends the call FAILED with a message for the model (or leaves a tool out, with a WARN),
 * never an exception into the runtime. docs/integrations.md has what maps and what does not. The core never imports
 * this package.
 */
package dev.toolcall.mcp;
