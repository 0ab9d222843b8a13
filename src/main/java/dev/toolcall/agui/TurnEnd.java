package dev.toolcall.agui;

import dev.toolcall.conversation.TurnResult;
import java.util.concurrent.CompletableFuture;

/**
 * The end of a turn of an {@link AguiEndpoint} thread, queued behind its calls' events; {@code turn} is the future the
 * thread tracked the turn by, so the end of a turn the thread has gone on from is told apart.
 */
record TurnEnd(CompletableFuture<TurnResult> turn, TurnResult result, Throwable failure) {}
