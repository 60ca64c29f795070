import { randomUUID } from "node:crypto";

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// A client may send its own x-request-id (to correlate across systems); otherwise one is made here.
export function requestIdFrom(headers: Headers | { get(name: string): string | null }): string {
  const given = headers.get("x-request-id");
  return given && CLIENT_ID.test(given) ? given : randomUUID();
}
