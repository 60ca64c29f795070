import { randomInt } from "node:crypto";
import { reloadEnv } from "../../lib/env";
import { disconnectDb } from "../../lib/db/client";
import { createAccount, createApiKey } from "../../lib/accounts/manage-accounts";
import { provisionNumber } from "../../lib/numbers/manage-numbers";
import type { RunningServer } from "./server";

// Shared by all suites: real rows in the server's database, made through the same services the CLI uses.
export interface TestAccount {
  accountId: string;
  apiKey: string;
  numbers: string[]; // E.164 digits, as listings show them
  headers: Record<string, string>;
}

let boundUrl: string | undefined;

/** Points this process's lib (db() and the rest) at the server's database; releaseFactories() lets it go. */
export async function bindTo(server: RunningServer): Promise<void> {
  if (boundUrl === server.database.url) return;
  await disconnectDb();
  process.env.DATABASE_URL = server.database.url;
  reloadEnv();
  boundUrl = server.database.url;
}

export async function releaseFactories(): Promise<void> {
  await disconnectDb();
  boundUrl = undefined;
}

/** A fresh valid US number nobody else in this database holds (NANP 2XX-555-01XX style is too small a range). */
export function randomNumber(): string {
  const areas = ["202", "212", "312", "415", "617", "713"];
  return `1${areas[randomInt(areas.length)]}${randomInt(200, 999)}${String(randomInt(0, 10000)).padStart(4, "0")}`;
}

export async function createTestAccount(
  server: RunningServer,
  options: { numbers?: number; name?: string; rateLimitPerSecond?: number } = {},
): Promise<TestAccount> {
  await bindTo(server);
  const account = await createAccount({
    name: options.name ?? "Test account",
    rateLimitPerSecond: options.rateLimitPerSecond,
  });
  const numbers: string[] = [];
  for (let i = 0; i < (options.numbers ?? 2); i++) {
    const number = await provisionNumber({ accountId: account.id, number: `+${randomNumber()}`, actor: "cli" });
    numbers.push(number.number);
  }
  const { key } = await createApiKey({ accountId: account.id, name: "test" });
  return { accountId: account.id, apiKey: key, numbers, headers: { apikey: key, "content-type": "application/json" } };
}

export async function createKey(server: RunningServer, accountId: string, options: { expiresAt?: Date } = {}) {
  await bindTo(server);
  return createApiKey({ accountId, name: "extra", expiresAt: options.expiresAt });
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** A plain HTTP call as any client would make it. */
export async function call(
  server: RunningServer,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<ApiResponse> {
  // A JSON body is declared JSON, as the portal and API clients declare it (the portal refuses anything else).
  const declared = Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === "content-type");
  const json = options.body !== undefined && options.rawBody === undefined && !declared;
  const response = await fetch(server.baseUrl + path, {
    method,
    headers: json ? { ...options.headers, "content-type": "application/json" } : options.headers,
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  let answer: Record<string, unknown> = {};
  try {
    answer = JSON.parse(text);
  } catch {
    // left empty: the test asserts on text
  }
  return { status: response.status, headers: response.headers, json: answer, text };
}
