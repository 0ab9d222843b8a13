/**
 * The library's remote face, version 1: a stable JSON form of its events, of a turn's interrupts and results and of
 * the decisions a remote client posts ({@link dev.toolcall.wire.WireFormat}, with a JSON Schema shipped in the jar),
 * and the check of who may read a session's events and decide its requests ({@link dev.toolcall.wire.SessionAccess},
 * with {@link dev.toolcall.wire.SessionTokens} as the embedded default: signed tokens any instance checks, revoked
 * through {@link dev.toolcall.wire.TokenRevocations}, or tokens in one process's memory). Protocol adapters (AG-UI, a
 * web page; A2A and ACP on paper, see {@code docs/remote.md}) are mappings of it. Imports core packages only.
 *
 * <p>Every public type is thread-safe. What a client posts wrong is a {@link dev.toolcall.wire.WireFormatException}
 * with a message for that client, and nothing is applied; an access check answers false, never throws, for a
 * credential it does not know.
 */
package dev.toolcall.wire;
