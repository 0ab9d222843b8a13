package dev.toolcall.postgres;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import javax.sql.DataSource;

/**
 * A small connection pool for the tests (the library takes any pooled {@link DataSource}; the tests add no pool
 * dependency): at most {@code size} connections, reused; a connection found closed is replaced.
 */
final class Pool {
  private Pool() {}

  static DataSource of(DataSource ds, int size) {
    LinkedBlockingQueue<Connection> idle = new LinkedBlockingQueue<>();
    Semaphore slots = new Semaphore(size);
    return PostgresCallStoreTest.proxy(DataSource.class, (p, m, args) -> {
      if (!m.getName().equals("getConnection")) {
        return PostgresCallStoreTest.invoke(ds, m, args);
      }
      slots.acquire();
      Connection c;
      try {
        c = idle.poll();
        while (c != null && c.isClosed()) {
          c = idle.poll();
        }
        if (c == null) {
          c = ds.getConnection();
        }
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
      } catch (Throwable t) {
        slots.release();
        throw t;
      }
      Connection real = c;
      boolean[] returned = {false};
      return Proxy.newProxyInstance(Pool.class.getClassLoader(), new Class<?>[] {Connection.class},
          (cp, cm, cargs) -> {
            if (cm.getName().equals("close")) {
              synchronized (returned) {
                if (!returned[0]) {
                  returned[0] = true;
                  if (!real.isClosed()) {
                    idle.add(real);
                  }
                  slots.release();
                }
              }
              return null;
            }
            return PostgresCallStoreTest.invoke(real, cm, cargs);
          });
    });
  }
}
