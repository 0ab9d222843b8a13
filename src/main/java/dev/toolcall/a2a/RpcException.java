package dev.toolcall.a2a;

import com.fasterxml.jackson.databind.JsonNode;

/** A JSON-RPC error to answer (the caller's fault, or a state the protocol names); nothing was changed. */
final class RpcException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL = -32603;
  static final int TASK_NOT_FOUND = -32001;
  static final int TASK_NOT_CANCELABLE = -32002;
  static final int PUSH_NOT_SUPPORTED = -32003;
  static final int UNSUPPORTED_OPERATION = -32004;
  static final int VERSION_NOT_SUPPORTED = -32009;

  private final int code;
  private final int httpStatus;
  private final transient JsonNode data;

  RpcException(int code, String message) {
    this(code, message, 200, null);
  }

  RpcException(int code, String message, int httpStatus, JsonNode data) {
    super(message, null, false, false);
    this.code = code;
    this.httpStatus = httpStatus;
    this.data = data;
  }

  static RpcException taskNotFound(String taskId) {
    return new RpcException(TASK_NOT_FOUND, "task not found: " + taskId);
  }

  int code() {
    return code;
  }

  int httpStatus() {
    return httpStatus;
  }

  JsonNode data() {
    return data;
  }
}
