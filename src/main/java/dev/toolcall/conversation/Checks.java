package dev.toolcall.conversation;

import java.util.Objects;

/** Argument checks shared by this package's records. */
final class Checks {
  private Checks() {}

  static String requireNonBlank(String value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return value;
  }
}
