import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// A real HTTP receiver on 127.0.0.1, as a customer's application would run one. What it answers is up to the test
// (`respond`); every request it got is kept, in arrival order.

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  at: number;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
  /** Never answer (the connection stays open until the client gives up). */
  hang?: boolean;
  /** The answer's body; "ok" unless given. */
  body?: string;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides each answer; default 200. */
  respond: (request: ReceivedRequest) => Answer;
  /** Stops listening (the receiver is "down": connections are refused) and starts again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Resolves when a request matching `match` has arrived (those already received count). */
  waitFor(match: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let server: Server;
  const waiters = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: "",
    port: 0,
    requests: [],
    respond: () => ({ status: 200 }),
    async down() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    async up() {
      server = make();
      await new Promise<void>((resolve) => server.listen(receiver.port, "127.0.0.1", resolve));
    },
    waitFor(match, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = receiver.requests.find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching webhook within ${timeoutMs} ms; got ${receiver.requests.length} requests`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      await receiver.down().catch(() => undefined);
    },
  };
  const make = () =>
    createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        let json = {};
        try {
          json = JSON.parse(body);
        } catch {
          // kept as text
        }
        const request: ReceivedRequest = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          body,
          json,
          at: Date.now(),
        };
        receiver.requests.push(request);
        for (const waiter of [...waiters]) waiter();
        const answer = receiver.respond(request);
        if (answer.hang) return;
        const send = () => {
          res.writeHead(answer.status ?? 200, { "content-type": "text/plain", ...answer.headers });
          res.end(answer.body ?? "ok");
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
  server = make();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks/parley`;
  return receiver;
}
