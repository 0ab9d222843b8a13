package dev.toolcall.execution;

import java.util.AbstractList;
import java.util.RandomAccess;

/** An unmodifiable list over an array that nobody writes any more. */
final class ArrayView<T> extends AbstractList<T> implements RandomAccess {
  final T[] items;

  ArrayView(T[] items) {
    this.items = items;
  }

  @Override
  public T get(int index) {
    return items[index];
  }

  @Override
  public int size() {
    return items.length;
  }
}
