import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import type { RunningServer } from "./server";

// Requests as an attacker sends them: node:http with the method, path bytes and headers exactly as given (fetch
// normalizes paths, refuses methods such as TRACE and CONNECT and drops some headers), and raw bytes over a socket
// for what is not HTTP at all.

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RawRequest {
  method: string;
  /** The request target as sent: may hold bad escapes, dot segments and bytes 0x80-0xFF (sent as single bytes). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function parse(text: string): RawResponse["json"] {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as RawResponse["json"]) : undefined;
  } catch {
    return undefined;
  }
}

export function rawRequest(server: RunningServer, options: RawRequest): Promise<RawResponse> {
  const headers = { ...options.headers };
  // node:http frames a DELETE or GET body by nothing at all unless told its length.
  const framed = Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name));
  if (options.body !== undefined && !framed) headers["content-length"] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        method: options.method,
        path: options.path,
        headers,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text) });
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer to ${options.method} ${options.path}`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Raw bytes to the server; the answer as text (status line, headers, body), once the server has answered. */
export function rawExchange(server: RunningServer, bytes: string | Buffer): Promise<RawResponse & { raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1", () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString("latin1");
      const [head = "", ...rest] = raw.split("\r\n\r\n");
      const [statusLine = "", ...headerLines] = head.split("\r\n");
      const headers: IncomingHttpHeaders = {};
      for (const line of headerLines) {
        const at = line.indexOf(":");
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      const text = Buffer.from(rest.join("\r\n\r\n"), "latin1").toString("utf8");
      resolve({ raw, status: Number(statusLine.split(" ")[1] ?? 0), headers, text, json: parse(text) });
    });
  });
}
