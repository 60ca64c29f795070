import { randomNumber, type TestAccount } from "../../helpers/factories";
import type { RunningServer } from "../../helpers/server";

// A steady stream of sends through the real API, as a client application makes them. Every message the API
// accepted (a 200/202 answer with `accepted` in messageInfo) is recorded: those are the promises the checker holds
// the system to. Answers that are errors or never come are counted, by kind.

export interface AcceptedMessage {
  messageId: string;
  from: string;
  to: string;
  numSegments: number;
  /** When the answer came (Date.now()). */
  at: number;
}

export interface Load {
  accepted: AcceptedMessage[];
  /** Answers other than an acceptance: `HTTP <status> <statusMessage>` or the network error, with their counts. */
  refused: Map<string, number>;
  /** Stops sending and waits for the requests in flight. */
  stop(): Promise<void>;
}

export function startLoad(
  server: RunningServer,
  account: TestAccount,
  options: { perSecond: number; tag: string; longEvery?: number; timeoutMs?: number },
): Load {
  const accepted: AcceptedMessage[] = [];
  const refused = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  const destinations = new Set<string>();
  let n = 0;

  const sendOne = async () => {
    const i = n++;
    const from = account.numbers[i % account.numbers.length]!;
    // A destination of its own per message: the SMSC's records are matched to messages by it.
    let to = randomNumber();
    while (destinations.has(to)) to = randomNumber();
    destinations.add(to);
    const head = `${options.tag} message ${i}`;
    // Every few messages one of 200 GSM characters: two parts (153 + 47).
    const long = options.longEvery !== undefined && i % options.longEvery === options.longEvery - 1;
    const body = long ? `${head} ${"x".repeat(200 - head.length - 1)}` : `${head}: your code is ${1000 + i}`;
    try {
      const response = await fetch(`${server.baseUrl}/v3/messages`, {
        method: "POST",
        headers: account.headers,
        body: JSON.stringify({ accountId: account.accountId, from, to, body }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const text = await response.text();
      let json: { data?: { messageInfo?: { messageId: string; status: string; numSegments: number }[] } } = {};
      try {
        json = JSON.parse(text);
      } catch {
        // counted by its status below
      }
      const info = json.data?.messageInfo?.[0];
      if ((response.status === 200 || response.status === 202) && info?.status === "accepted") {
        accepted.push({ messageId: info.messageId, from, to, numSegments: info.numSegments, at: Date.now() });
      } else {
        const key = `HTTP ${response.status} ${text.slice(0, 120)}`;
        refused.set(key, (refused.get(key) ?? 0) + 1);
      }
    } catch (error) {
      const key = `no answer: ${(error as Error).name} ${(error as Error).message}`.slice(0, 160);
      refused.set(key, (refused.get(key) ?? 0) + 1);
    }
  };

  const timer = setInterval(() => {
    const request = sendOne().finally(() => inFlight.delete(request));
    inFlight.add(request);
  }, 1000 / options.perSecond);

  return {
    accepted,
    refused,
    async stop() {
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
