/**
 * The Agent2Agent protocol (A2A) over the library's agents: {@link dev.toolcall.a2a.A2aServer}, a JSON-RPC server on
 * the JDK's HTTP server whose tasks end {@code input-required} when a tool call waits for a person, and are answered
 * by a message on the same task carrying decisions in the wire format; {@link dev.toolcall.a2a.TaskStore} keeps the
 * tasks where every instance reads them.
 */
@NullMarked
package dev.toolcall.a2a;

import org.jspecify.annotations.NullMarked;
