import { Socket } from "node:net";

/**
 * A socket that closes itself when its peer stops answering: once something is written, some answer must arrive
 * within `timeoutMs`. For node-postgres (its `stream` option): a connection whose peer went silent (a failover
 * behind a proxy that keeps the client's side open, a NAT or firewall entry dropped, a half-open TCP connection)
 * would otherwise wait for ever, and every query on it with it: TCP keepalive cannot tell while something in between
 * still acknowledges. Closed, the connection fails its query at once (the caller sees an error, as for any lost
 * connection) and the pool replaces it. A request PostgreSQL takes longer than this to start answering fails the
 * same way. Over TLS the encrypted stream bypasses these hooks once established: only TCP keepalive watches it.
 */
class WatchedSocket extends Socket {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {
    super();
    this.on("data", () => this.disarm());
    this.once("close", () => this.disarm());
  }

  // The stream implementation's own write hooks (Socket resets an overridden write() when it connects).
  override _write(chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.arm();
    super._write(chunk, encoding, callback);
  }

  override _writev(
    chunks: { chunk: unknown; encoding: BufferEncoding }[],
    callback: (error?: Error | null) => void,
  ): void {
    this.arm();
    super._writev!(chunks, callback);
  }

  /** Waiting since the first write that nothing was read after. */
  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.destroy(new Error(`no answer within ${this.timeoutMs} ms; the connection was closed`));
    }, this.timeoutMs);
    this.timer.unref();
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

export function watchedSocket(timeoutMs: number): () => Socket {
  return () => new WatchedSocket(timeoutMs);
}
