/**
 * Tool calls and their approvals in code editors: an agent side of the Agent Client Protocol (ACP v1), JSON-RPC 2.0
 * as newline-delimited JSON over any pair of streams (an editor's stdio).
 *
 * <ul>
 *   <li>{@link dev.toolcall.acp.AcpAgent}: serves the library's {@link dev.toolcall.conversation.Agent} to an editor:
 *       sessions, prompt turns, tool calls as {@code session/update} notifications, and each permission request as
 *       {@code session/request_permission}, answered onto the library's decisions.</li>
 *   <li>{@link dev.toolcall.acp.ToolKind}: the protocol's tool kinds, chosen per tool.</li>
 * </ul>
 *
 * <p>Depends on nothing beyond the library's own dependencies (Jackson). Everything an editor sends is checked: a
 * malformed or oversized message, an unknown method, wrong parameters, an unknown session or an answer to a request
 * the agent did not make is a JSON-RPC error or is dropped, and decides nothing. See {@code docs/remote.md}.
 */
package dev.toolcall.acp;
