/**
 * A UI-neutral view model of tool calls, and a dependency-free ANSI terminal renderer built on it.
 *
 * <ul>
 *   <li>{@link dev.toolcall.presentation.Theme}: per state an icon, a {@link dev.toolcall.presentation.ColorToken},
 *       an {@link dev.toolcall.presentation.Animation} and a label. Two ship ({@link
 *       dev.toolcall.presentation.Theme#emoji()} and {@link dev.toolcall.presentation.Theme#compact()}); a UI may
 *       build its own.</li>
 *   <li>{@link dev.toolcall.presentation.DisplayRules}: the effective display state and content visibility.</li>
 *   <li>{@link dev.toolcall.presentation.CallTree}: nested calls as a tree.</li>
 *   <li>{@link dev.toolcall.presentation.Presenter}: turns snapshots into
 *       {@link dev.toolcall.presentation.ToolCallView}s as of a ticker reading.</li>
 *   <li>{@link dev.toolcall.presentation.TerminalRenderer} and {@link dev.toolcall.presentation.LiveDisplay}: frames
 *       of text, repainted in place on a terminal, plain lines otherwise.</li>
 * </ul>
 *
 * <p>See {@code docs/presentation.md} for the tables and rules.
 */
package dev.toolcall.presentation;
