/**
 * Tool calls and their approvals on the wire: an AG-UI endpoint and a web approval page.
 *
 * <ul>
 *   <li>{@link dev.toolcall.agui.AguiEndpoint}: the framework-neutral core of the AG-UI protocol: a run's input
 *       (JSON) in, Server-Sent-Event frames out to a {@link dev.toolcall.agui.FrameSink}; a turn that needs a person
 *       ends its run with an interrupt outcome, and a later run answers it with resume entries.</li>
 *   <li>{@link dev.toolcall.agui.ApprovalServer}: an embedded server on the JDK's own HTTP server that serves the
 *       AG-UI endpoint and the approval page (no dependency).</li>
 *   <li>{@link dev.toolcall.agui.RefusedException}: what the remote path refuses, with its HTTP status.</li>
 * </ul>
 *
 * <p>Who may read and decide is {@link dev.toolcall.wire.SessionAccess}. Every public type is thread-safe except the
 * builders. A refusal happens before anything is read or moved; once a run streams, its failures are
 * {@code RUN_ERROR} frames, and what a tool or the model did wrong reaches the client as the text the model read.
 * See {@code docs/agui.md} and {@code docs/remote.md}.
 */
package dev.toolcall.agui;
