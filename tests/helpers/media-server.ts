import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import type { MediaFixtures } from "./media-fixtures";

// A real HTTP server on 127.0.0.1 offering media the way the web and MMS providers do, and misbehaving the ways
// they can: redirects to addresses Parley must not reach, a body that never ends, 50 MB with and without a
// Content-Length, a Content-Length that lies, 404, a 500 that passes, and media behind Basic auth (a provider's
// inbound media). Any file in the fixtures' directory is offered at /<name>, streamed from disk.

export const MEDIA_USER = "AC0123456789";
export const MEDIA_PASSWORD = "provider-secret";
/** The size /huge and /huge-chunked offer. */
export const HUGE_BYTES = 50 * 1024 * 1024;

export interface MediaRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface MediaServer {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  port: number;
  url(pathname: string): string;
  /** Every request, in arrival order. */
  requests: MediaRequest[];
  /** Body bytes written per path, for the endless and oversized answers (to see the client stopped them). */
  bytesSent: Map<string, number>;
  stop(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".gif": "image/gif",
  ".mp4": "video/mp4",
  ".pdf": "application/pdf",
  ".svg": "image/svg+xml",
  ".vcf": "text/vcard",
};

const CHUNK = Buffer.alloc(64 * 1024, 0x5a);

function basicAuthorized(headers: IncomingHttpHeaders): boolean {
  const expected = `Basic ${Buffer.from(`${MEDIA_USER}:${MEDIA_PASSWORD}`).toString("base64")}`;
  return headers.authorization === expected;
}

/** Waits until `stream` can take more, or is closed. */
function drainOrClose(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}

export async function startMediaServer(fixtures: MediaFixtures): Promise<MediaServer> {
  const requests: MediaRequest[] = [];
  const bytesSent = new Map<string, number>();
  const sockets = new Set<Socket>();
  let flakyCalls = 0;
  let port = 0;
  const count = (key: string, bytes: number) => bytesSent.set(key, (bytesSent.get(key) ?? 0) + bytes);

  const redirect = (res: ServerResponse, location: string, status = 302) => {
    res.writeHead(status, { location, "content-length": "0" });
    res.end();
  };

  /** Streams `total` bytes (endless when Infinity) as fast as the client reads, until it hangs up. */
  const stream = async (res: ServerResponse, key: string, total: number, everyMs = 0) => {
    let sent = 0;
    while (sent < total && !res.destroyed) {
      const part = CHUNK.subarray(0, Math.min(everyMs ? 16 : CHUNK.length, total - sent));
      sent += part.length;
      count(key, part.length);
      const more = res.write(part);
      if (everyMs) await new Promise((resolve) => setTimeout(resolve, everyMs));
      else if (!more) await drainOrClose(res);
    }
    if (!res.destroyed) res.end();
  };

  const serveFile = async (res: ServerResponse, name: string, extra: Record<string, string> = {}) => {
    const file = path.join(fixtures.dir, path.basename(name));
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "content-length": String(info.size),
      ...extra,
    });
    createReadStream(file).pipe(res);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://media.test");
    const route = url.pathname;
    requests.push({ path: route, headers: req.headers });
    const here = `http://127.0.0.1:${port}`;
    const chain = /^\/redirect-chain\/(\d+)$/.exec(route);
    if (chain) {
      const left = Number(chain[1]);
      if (left === 0) void serveFile(res, fixtures.smallPng.name);
      else redirect(res, `/redirect-chain/${left - 1}`);
      return;
    }
    if (route.startsWith("/auth/")) {
      if (!basicAuthorized(req.headers)) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="media"', "content-type": "text/plain" });
        res.end("credentials needed");
        return;
      }
      const rest = route.slice("/auth/".length);
      // The provider's media, once authorised, redirected to another host (as Twilio sends media on to its CDN).
      if (rest === "elsewhere") redirect(res, `http://localhost:${port}/auth/${fixtures.smallPng.name}`);
      else void serveFile(res, rest);
      return;
    }
    switch (route) {
      // Another loopback address than the one the test starts from.
      case "/redirect-private":
        return redirect(res, `http://127.0.0.2:${port}/${fixtures.largePng.name}`);
      case "/redirect-localhost":
        return redirect(res, `http://localhost:${port}/${fixtures.largePng.name}`);
      case "/redirect-metadata":
        return redirect(res, "http://169.254.169.254/latest/meta-data/iam/security-credentials/");
      case "/redirect-ipv6":
        return redirect(res, `http://[::1]:${port}/${fixtures.largePng.name}`);
      case "/redirect-ftp":
        return redirect(res, `ftp://127.0.0.1/${fixtures.largePng.name}`);
      case "/redirect-ok":
        return redirect(res, `/${fixtures.rotatedJpeg.name}`, 301);
      case "/redirect-same-host":
        return redirect(res, `${here}/${fixtures.smallPng.name}`, 307);
      case "/no-location":
        res.writeHead(302, { "content-length": "0" }).end();
        return;
      case "/never-ends":
        res.writeHead(200, { "content-type": "image/png" });
        void stream(res, route, Infinity, 100);
        return;
      case "/huge":
        res.writeHead(200, { "content-type": "video/mp4", "content-length": String(HUGE_BYTES) });
        void stream(res, route, HUGE_BYTES);
        return;
      case "/huge-chunked":
        res.writeHead(200, { "content-type": "video/mp4" });
        void stream(res, route, HUGE_BYTES);
        return;
      case "/lying-length":
        return lyingLength(res.socket!, fixtures, count);
      case "/short-length":
        res.writeHead(200, { "content-type": "video/mp4", "content-length": String(5 * 1024 * 1024) });
        res.write(CHUNK);
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      case "/not-found":
        res.writeHead(404, { "content-type": "text/plain" }).end("no such medium");
        return;
      case "/gone":
        res.writeHead(410, { "content-type": "text/plain" }).end("expired");
        return;
      case "/flaky":
        flakyCalls++;
        if (flakyCalls % 2 === 1) {
          res.writeHead(500, { "content-type": "text/plain" }).end("try again");
          return;
        }
        return void serveFile(res, fixtures.smallPng.name);
      case "/named":
        return void serveFile(res, fixtures.smallPng.name, {
          "content-disposition": `attachment; filename="x.png"; filename*=UTF-8''Sommerfest%20%C3%BCber.png`,
        });
      case "/empty":
        res.writeHead(200, { "content-type": "image/png", "content-length": "0" }).end();
        return;
      default:
        void serveFile(res, route.slice(1));
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    port,
    url: (pathname) => `${baseUrl}${pathname.startsWith("/") ? "" : "/"}${pathname}`,
    requests,
    bytesSent,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A Content-Length that covers only a small PNG, then 50 MB more on the same connection, written on the socket
 * itself (node:http would not send more than it declared).
 */
async function lyingLength(socket: Socket, fixtures: MediaFixtures, count: (key: string, bytes: number) => void) {
  const png = await readFile(fixtures.smallPng.path);
  socket.write(`HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: ${png.length}\r\n\r\n`);
  socket.write(png);
  let sent = 0;
  while (sent < HUGE_BYTES && !socket.destroyed) {
    sent += CHUNK.length;
    count("/lying-length", CHUNK.length);
    if (!socket.write(CHUNK)) await drainOrClose(socket);
  }
  socket.end();
}
