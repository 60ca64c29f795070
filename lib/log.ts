import pino, { type Logger } from "pino";
import { env } from "./env";
import { processSingleton } from "./process-singletons";

// JSON logs on stdout. Every line of a request carries its `reqId`, the same id as the x-request-id header.
const holder = processSingleton("log", (): { __parleyLog?: Logger } => ({}));

export function logger(): Logger {
  holder.__parleyLog ??= pino({
    level: env().LOG_LEVEL,
    base: { service: "parley" },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ["req.headers.apikey", "req.headers.authorization", "*.password", "*.apiKey"], remove: true },
  });
  return holder.__parleyLog;
}

export type { Logger };
