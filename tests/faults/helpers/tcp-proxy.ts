import { createConnection, createServer, type AddressInfo, type Socket } from "node:net";

// A TCP proxy between a worker and PostgreSQL that can drop connections silently. cut() makes every connection
// open at that moment half-open for good: both of its sockets stay open, and nothing more is forwarded either way
// nor answered — no FIN, no RST — as when a NAT or firewall entry is dropped, or a failover happens behind a proxy.
// PostgreSQL keeps the session (and any transaction it had open, with its locks) until something ends it; the
// client sees a connection that simply never answers. Connections made while it is cut are accepted and get
// nothing either. restore() forwards new connections again; the ones that went silent stay silent: the client has
// to notice.

export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  /** Connections open now: forwarded, and silent. */
  counts(): { forwarded: number; silent: number };
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const forwarded = new Set<{ client: Socket; upstream: Socket }>();
  const silent = new Set<Socket>();
  let isCut = false;

  /** Reads and drops whatever arrives (so the peer's writes never block), sends nothing, closes nothing. */
  const silence = (socket: Socket) => {
    silent.add(socket);
    socket.removeAllListeners("data");
    socket.removeAllListeners("end");
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
    socket.once("close", () => silent.delete(socket));
  };

  const server = createServer({ allowHalfOpen: true }, (client) => {
    client.on("error", () => undefined);
    if (isCut) {
      silence(client);
      return;
    }
    const upstream = createConnection({ host: targetHost, port: targetPort, allowHalfOpen: true });
    const pair = { client, upstream };
    forwarded.add(pair);
    upstream.on("error", () => undefined);
    client.on("data", (chunk: Buffer) => upstream.write(chunk));
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    // An ordinary close on either side (PostgreSQL restarting, the client ending) is passed on as usual.
    const end = () => {
      if (!forwarded.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.once("end", end);
      socket.once("close", end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      isCut = true;
      for (const pair of [...forwarded]) {
        forwarded.delete(pair);
        silence(pair.client);
        silence(pair.upstream);
      }
    },
    restore() {
      isCut = false;
    },
    counts: () => ({ forwarded: forwarded.size, silent: silent.size }),
    async close() {
      for (const { client, upstream } of forwarded) {
        client.destroy();
        upstream.destroy();
      }
      for (const socket of silent) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
