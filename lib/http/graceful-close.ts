import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface GracefulClose {
  /** Called for every request the server's handler takes, so that closing waits for it. */
  track(res: ServerResponse): void;
  /**
   * Stops listening, lets the requests in flight finish, and closes every connection: idle keep-alive connections
   * at once, the others after their last response (which tells the client so: `Connection: close`), and whatever is
   * left (upgraded connections still in their close handshake) once no request is in flight. Resolves when the
   * server is closed.
   */
  close(): Promise<void>;
}

// Node's server.close() stops listening and closes the connections idle at that moment, but calls back only when
// every connection is gone: a keep-alive connection whose request was in flight stays open after its answer (for
// keepAliveTimeout), and a client that keeps using it keeps the server from closing at all.
export function gracefulClose(server: Server): GracefulClose {
  const inFlight = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  let closing = false;
  let settle: (() => void) | null = null;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const lastResponse = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader("connection", "close");
  };
  return {
    track(res) {
      inFlight.add(res);
      if (closing) lastResponse(res);
      res.once("close", () => {
        inFlight.delete(res);
        if (!closing) return;
        // Its connection may be idle now (an answer sent before the close began kept it alive).
        setImmediate(() => server.closeIdleConnections());
        if (inFlight.size === 0) settle?.();
      });
    },
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of inFlight) lastResponse(res);
      server.closeIdleConnections();
      if (inFlight.size > 0) await new Promise<void>((resolve) => (settle = resolve));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
