package dev.toolcall.execution;

import dev.toolcall.ToolCallOrigin;
import java.util.Objects;

/**
 * One tool call as the model (or a person's command) asked for it: its id, the tool's name and the raw argument
 * text, untouched. Nothing here has been validated; the scheduler does that, and a bad request ends its call FAILED
 * rather than throwing.
 *
 * @param callId the call's id in the library (non-blank): the provider's id, or one the runtime minted when the
 *     provider's was blank, missing or reused (see {@link #withLabel})
 * @param toolName the requested tool name (non-blank; it may name no tool)
 * @param rawArguments the argument text exactly as sent (may be empty)
 * @param parentCallId the enclosing call of a nested call, or null
 * @param origin who asked for the call; the call's identity carries it
 * @param label the id the provider sent, exactly (empty when none): what the result is answered under; equal to
 *     {@code callId} unless the runtime minted the call id
 */
public record CallRequest(String callId, String toolName, String rawArguments, String parentCallId,
    ToolCallOrigin origin, String label) {

  /** A request whose label is its call id. */
  public CallRequest(String callId, String toolName, String rawArguments, String parentCallId,
      ToolCallOrigin origin) {
    this(callId, toolName, rawArguments, parentCallId, origin, callId);
  }

  /** A request the model made ({@link ToolCallOrigin#MODEL}). */
  public CallRequest(String callId, String toolName, String rawArguments, String parentCallId) {
    this(callId, toolName, rawArguments, parentCallId, ToolCallOrigin.MODEL);
  }

  /**
   * A request for a call the provider named {@code providerCallId} (blank, missing or reused: anything it sent) under
   * a call id the runtime minted: {@code callId} is the call's identity in the library, unique in its session, and
   * {@code providerCallId} the label its result is answered under. Events, views and spans carry both.
   */
  public static CallRequest labelled(String callId, String providerCallId, String toolName, String rawArguments) {
    return new CallRequest(callId, toolName, rawArguments, null, ToolCallOrigin.MODEL,
        Objects.requireNonNull(providerCallId, "providerCallId"));
  }

  /**
   * A fresh call id for a call whose provider id cannot serve as one: {@code call_} and 24 random hex digits (96
   * bits), unique in any session for all practical purposes.
   */
  public static String mintCallId() {
    java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
    return String.format("call_%08x%016x", r.nextInt(), r.nextLong());
  }

  /** The same request labelled with the provider's id {@code providerCallId} (see {@link #labelled}). */
  public CallRequest withLabel(String providerCallId) {
    return new CallRequest(callId, toolName, rawArguments, parentCallId, origin,
        Objects.requireNonNull(providerCallId, "providerCallId"));
  }

  /** Checks the parts: a null or blank id or name is a programming error of the runtime, not the model's. */
  public CallRequest {
    requireNonBlank(callId, "callId");
    requireNonBlank(toolName, "toolName");
    Objects.requireNonNull(rawArguments, "rawArguments");
    if (parentCallId != null) {
      requireNonBlank(parentCallId, "parentCallId");
      if (parentCallId.equals(callId)) {
        throw new IllegalArgumentException("parentCallId must differ from callId '" + callId + "'");
      }
    }
    Objects.requireNonNull(origin, "origin");
    if (label == null) {
      label = callId;
    }
  }

  /** A top-level call. */
  public static CallRequest of(String callId, String toolName, String rawArguments) {
    return new CallRequest(callId, toolName, rawArguments, null);
  }

  /** The same request nested in {@code parentCallId}. */
  public CallRequest nestedIn(String parentCallId) {
    return new CallRequest(callId, toolName, rawArguments, parentCallId, origin, label);
  }

  /** The same request as a user's command ({@link ToolCallOrigin#USER_COMMAND}). */
  public CallRequest asCommand() {
    return new CallRequest(callId, toolName, rawArguments, parentCallId, ToolCallOrigin.USER_COMMAND, label);
  }

  private static void requireNonBlank(String v, String name) {
    Objects.requireNonNull(v, name);
    if (v.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
