/* eslint-disable @typescript-eslint/no-explicit-any -- envelopes read loosely in assertions */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, type DemoCredentials } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";
import { releaseFactories } from "../helpers/factories";

// A long thread read a page at a time (the newest first, older pages before a message), search across the
// account's conversations (words in old messages, numbers written as people write them), and a thread opened at a
// search result.
let server: RunningServer;
let demo: DemoCredentials;
let other: DemoCredentials;
let agentCookie: string;
let otherCookie: string;
const agent = { email: "agent@search.test", password: "agent-password-123" };
const phone = "14155550123";
const THREAD = 250;
const RARE_AT = 10;

beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  other = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
  agentCookie = await portalCookie(server, agent.email, agent.password);
  otherCookie = await portalCookie(server, other.email, other.password);
  for (let i = 0; i < THREAD; i++) {
    const body = i === RARE_AT ? "Your parcel Zebracorn-7 waits at the depot on Elm Street" : `Update number ${i}`;
    await send({ to: phone, body, conversational: true, userId: "crm-1", userType: "bot" });
  }
  // Another conversation, so that a search has something not to find.
  await send({ to: "12125550999", body: "Nothing about parcels here", conversational: true });
}, 120_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

async function send(body: Record<string, unknown>) {
  const response = await fetch(`${server.baseUrl}/v3/messages`, {
    method: "POST",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ accountId: demo.accountId, from: demo.numbers[0], ...body }),
  });
  expect(response.status).toBe(200);
}

const base = (accountId = demo.accountId) => `${server.baseUrl}/api/admin/accounts/${accountId}/conversations`;

async function get(path: string, cookie = agentCookie, accountId = demo.accountId) {
  const response = await fetch(`${base(accountId)}${path}`, { headers: { cookie } });
  return { status: response.status, body: (await response.json()) as any };
}

async function conversationId(): Promise<string> {
  const { body } = await get(`?q=${phone}`);
  return body.data.conversations[0].id as string;
}

describe("a long thread", () => {
  it("opens with its newest 100 messages and reads older pages before a message, oldest first", async () => {
    const id = await conversationId();
    const first = await get(`/${id}`);
    expect(first.status).toBe(200);
    const bodies = (page: any[]) => page.map((m: any) => m.body);
    expect(first.body.data.messages).toHaveLength(100);
    expect(first.body.data.hasOlder).toBe(true);
    expect(bodies(first.body.data.messages).at(-1)).toBe(`Update number ${THREAD - 1}`);
    expect(bodies(first.body.data.messages)[0]).toBe(`Update number ${THREAD - 100}`);

    const second = await get(`/${id}/messages?before=${first.body.data.messages[0].id}`);
    expect(second.status).toBe(200);
    expect(second.body.data.hasOlder).toBe(true);
    expect(bodies(second.body.data.messages)).toEqual(
      Array.from({ length: 100 }, (_, i) => `Update number ${THREAD - 200 + i}`),
    );
    const third = await get(`/${id}/messages?before=${second.body.data.messages[0].id}`);
    expect(third.body.data.hasOlder).toBe(false);
    expect(third.body.data.messages).toHaveLength(THREAD - 200);
    expect(third.body.data.messages[0].body).toBe("Update number 0");
  });

  it("refuses a page before a message that is not the thread's, and another account's thread", async () => {
    const id = await conversationId();
    const unknown = await get(`/${id}/messages?before=no-such-message`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ status: "InvalidRequest", statusCode: 400, data: { field: "before" } });
    expect(JSON.stringify(unknown.body)).toMatch(/before/);
    const missing = await get(`/${id}/messages`);
    expect(missing.status).toBe(400);
    const foreign = await get(`/${id}/messages?before=x`, otherCookie, other.accountId);
    expect(foreign.status).toBe(404);
  });
});

describe("search across conversations", () => {
  it("finds a word of an old message, whatever its case, with the words around it marked", async () => {
    const id = await conversationId();
    const { status, body } = await get("/search?q=ZEBRACORN");
    expect(status).toBe(200);
    expect(body.data.messages).toHaveLength(1);
    expect(body.data.messages[0]).toMatchObject({
      conversationId: id,
      remoteNumber: phone,
      snippet: { before: "Your parcel ", match: "Zebracorn", after: "-7 waits at the depot on Elm Street" },
    });
    const none = await get("/search?q=platypus");
    expect(none.body.data.messages).toEqual([]);
  });

  it("finds a conversation by its number as it is displayed or typed", async () => {
    const id = await conversationId();
    for (const q of ["(415) 555-0123", "+1 415 555 0123", "+14155550123", "555-0123"]) {
      const { body } = await get(`/search?q=${encodeURIComponent(q)}`);
      expect(
        body.data.numbers.map((n: any) => n.conversationId),
        `search ${q}: ${JSON.stringify(body)}`,
      ).toEqual([id]);
      // The conversation list's own search agrees.
      const list = await get(`?q=${encodeURIComponent(q)}`);
      expect(
        list.body.data.conversations.map((c: any) => c.id),
        `list ${q}`,
      ).toEqual([id]);
    }
  });

  it("finds a conversation by its contact's name, and names the contact in every hit", async () => {
    const id = await conversationId();
    const saved = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/contacts/${phone}`, {
      method: "PUT",
      headers: { cookie: agentCookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "Zelda Quimby" }),
    });
    expect(saved.status).toBe(200);
    const { body } = await get("/search?q=quimby");
    expect(body.data.contacts).toEqual([expect.objectContaining({ conversationId: id, contactName: "Zelda Quimby" })]);
    const words = await get("/search?q=zebracorn");
    expect(words.body.data.messages[0]).toMatchObject({ conversationId: id, contactName: "Zelda Quimby" });
    const digits = await get("/search?q=555-0123");
    expect(digits.body.data.numbers[0]).toMatchObject({ conversationId: id, contactName: "Zelda Quimby" });
    expect(digits.body.data.contacts).toEqual([]);
  });

  it("opens the thread at a result: from a little before it to the newest, the result named", async () => {
    const { body } = await get("/search?q=zebracorn");
    const hit = body.data.messages[0];
    const thread = await get(`/${hit.conversationId}?at=${hit.messageId}`);
    expect(thread.status).toBe(200);
    const messages = thread.body.data.messages as any[];
    expect(thread.body.data.at).toBe(hit.messageId);
    expect(messages[0].body).toBe("Update number 0");
    expect(messages.at(-1).body).toBe(`Update number ${THREAD - 1}`);
    expect(messages).toHaveLength(THREAD);
    expect(messages.find((m) => m.id === hit.messageId)?.body).toMatch(/Zebracorn/);
    // A message of another conversation is not a place to open this one at: it opens as usual.
    const elsewhere = await get(`/${hit.conversationId}?at=not-a-message`);
    expect(elsewhere.body.data.at).toBeNull();
    expect(elsewhere.body.data.messages).toHaveLength(100);
  });

  it("answers bad searches with the error envelope, and another account's search with 403", async () => {
    for (const q of ["", "   ", "x".repeat(201)]) {
      const { status, body } = await get(`/search?q=${encodeURIComponent(q)}`);
      expect(status, JSON.stringify(q)).toBe(400);
      expect(body).toMatchObject({ status: "InvalidRequest", statusCode: 400, data: { field: "q" } });
    }
    const foreign = await get("/search?q=zebracorn", otherCookie, demo.accountId);
    expect(foreign.status).toBe(403);
  });
});
