package dev.toolcall.agui;

import dev.toolcall.conversation.TurnResult;

/** The end of a turn of an {@link AguiEndpoint} thread, queued behind its calls' events. */
record TurnEnd(TurnResult result, Throwable failure) {}
