package dev.toolcall.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on a loopback port to a server on another (the tests' PostgreSQL), whose {@link #down()} makes the
 * server unreachable as a stopped one is: every open connection is cut and new ones are closed at once, until
 * {@link #up()}. Thread-safe; one daemon thread accepts, two per connection copy.
 */
final class TcpProxy implements AutoCloseable {
  private final int target;
  private final ServerSocket server;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean down;
  private volatile boolean closed;

  TcpProxy(int target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "tcp-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Cuts every connection and refuses new ones until {@link #up()}. */
  void down() {
    down = true;
    for (Socket s : open) {
      quietClose(s);
    }
  }

  /** Accepts and forwards connections again. */
  void up() {
    down = false;
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (down) {
        quietClose(client);
        continue;
      }
      try {
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        client.setTcpNoDelay(true); // as the driver's own socket: no Nagle delay added to each small write
        upstream.setTcpNoDelay(true);
        open.add(client);
        open.add(upstream);
        pipe(client, upstream);
        pipe(upstream, client);
      } catch (IOException e) {
        quietClose(client);
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n; (n = in.read(buf)) >= 0; ) {
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // cut, or the other side closed
      } finally {
        quietClose(from);
        quietClose(to);
      }
    }, "tcp-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  private void quietClose(Socket s) {
    open.remove(s);
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Socket s : open) {
      quietClose(s);
    }
  }
}
