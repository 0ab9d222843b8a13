/**
 * PostgreSQL as the store of tool calls, on the optional {@code org.postgresql:postgresql} dependency:
 * {@link dev.toolcall.postgres.PostgresCallStore} keeps one row per call, written by compare-and-set on the call's
 * version, and gives a runtime its {@code CallStore} ({@code calls()}), its {@code SharedCallStore} among several
 * runtimes on one database ({@code shared(owner, lease)}), a {@code SessionGrantStore} ({@code sessionGrants()}) and
 * a place for an agent's saved state; {@link dev.toolcall.postgres.ChangeFeed} tells a runtime each version any
 * runtime stores; {@link dev.toolcall.postgres.PostgresTokenRevocations} shares the revocations of signed session
 * tokens among instances; {@link dev.toolcall.postgres.StoredCall} is one row and
 * {@link dev.toolcall.postgres.StoreException} what a failed operation throws.
 *
 * <p>Every public type is thread-safe (records are immutable). The application passes a pooled {@code DataSource}
 * and applies the bundled schema once ({@code applySchema()}). A database failure is a {@code StoreException} that
 * says whether the write may have been committed and whether trying again may help; nothing is half written. The
 * rest of the package (the write path, row reading, the shared view, the grant and conversation tables, the escaping
 * of U+0000) is package-private. docs/durability.md describes the schema, the faults and their proofs. The core never
 * imports this package.
 */
package dev.toolcall.postgres;
