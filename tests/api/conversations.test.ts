/* eslint-disable @typescript-eslint/no-explicit-any -- envelopes read loosely in assertions */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io } from "socket.io-client";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";
import { bindTo, releaseFactories } from "../helpers/factories";
import { db } from "../../lib/db/client";

let server: RunningServer;
let demo: DemoCredentials;
let other: DemoCredentials;
let agentCookie: string;
let otherCookie: string;
const agent = { email: "agent@conversations.test", password: "agent-password-123" };

beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  other = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
  agentCookie = await portalCookie(server, agent.email, agent.password);
  otherCookie = await portalCookie(server, other.email, other.password);
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const base = (accountId: string) => `${server.baseUrl}/api/admin/accounts/${accountId}/conversations`;

async function send(body: Record<string, unknown>) {
  const response = await fetch(`${server.baseUrl}/v3/messages`, {
    method: "POST",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ accountId: demo.accountId, from: demo.numbers[0], ...body }),
  });
  expect(response.status).toBe(200);
}

async function list(cookie: string, accountId = demo.accountId, query = "") {
  const response = await fetch(`${base(accountId)}${query}`, { headers: { cookie } });
  return { status: response.status, body: (await response.json()) as { data: any } };
}

describe("conversations", () => {
  it("a conversational API send creates the conversation; a notification does not", async () => {
    await send({ to: "14155550001", body: "A notification" });
    expect((await list(agentCookie)).body.data.total).toBe(0);
    await send({ to: "14155550001", body: "Let's talk", conversational: true, userId: "crm-7", userType: "bot" });
    const { status, body } = await list(agentCookie);
    expect(status).toBe(200);
    expect(body.data.total).toBe(1);
    expect(body.data.conversations[0]).toMatchObject({ remoteNumber: "14155550001", unread: 0, optedOut: false });
    // Later notifications to the phone show in the thread as automated lines, and create nothing.
    await send({ to: "14155550001", body: "Your order shipped" });
    const id = body.data.conversations[0].id;
    const thread = await fetch(`${base(demo.accountId)}/${id}`, { headers: { cookie: agentCookie } });
    const messages = ((await thread.json()) as { data: any }).data.messages;
    expect(messages.map((m: any) => [m.body, m.automated, m.userType])).toEqual([
      ["Let's talk", false, "bot"],
      ["Your order shipped", true, null],
    ]);
    expect((await list(agentCookie)).body.data.total).toBe(1);
  });

  it("an agent replies through the API's send path and reads unread counts", async () => {
    await parley(
      ["inbound", "--from", "+14155550002", "--to", `+${demo.numbers[0]!.replace("+", "")}`, "--body", "hi"],
      server.database.url,
    );
    const { body } = await list(agentCookie, demo.accountId, "?filter=unread");
    expect(body.data.conversations).toHaveLength(1);
    const id = body.data.conversations[0].id;
    expect(body.data.conversations[0].unread).toBe(1);
    const reply = await fetch(`${base(demo.accountId)}/${id}/messages`, {
      method: "POST",
      headers: { cookie: agentCookie, "content-type": "application/json" },
      body: JSON.stringify({ body: "Hello!", clientId: "c0123456789abcdef" }),
    });
    expect(reply.status).toBe(200);
    const sent = ((await reply.json()) as { data: any }).data.message;
    expect(sent).toMatchObject({ status: "accepted", numSegments: 1 });
    // A retry after a lost answer gets the same message, and nothing is sent twice; so does a retry whose first
    // answer an earlier version stored as the API's whole answer.
    const retry = () =>
      fetch(`${base(demo.accountId)}/${id}/messages`, {
        method: "POST",
        headers: { cookie: agentCookie, "content-type": "application/json" },
        body: JSON.stringify({ body: "Hello!", clientId: "c0123456789abcdef" }),
      }).then(async (r) => ({ status: r.status, message: ((await r.json()) as { data: any }).data.message }));
    expect(await retry()).toEqual({ status: 200, message: sent });
    const where = { accountId: demo.accountId, key: "conversation-c0123456789abcdef" };
    await bindTo(server);
    const stored = await db().idempotencyRecord.findFirstOrThrow({ where });
    const envelope = { apiVersion: "v3", data: { messageInfo: [JSON.parse(stored.responseBody)] } };
    await db().idempotencyRecord.updateMany({ where, data: { responseBody: JSON.stringify(envelope) } });
    expect(await retry()).toEqual({ status: 200, message: sent });
    expect(await db().message.count({ where: { referenceId: "c0123456789abcdef" } })).toBe(1);
    const read = await fetch(`${base(demo.accountId)}/${id}/read`, {
      method: "POST",
      headers: { cookie: agentCookie, "content-type": "application/json" },
      body: JSON.stringify({ read: true }),
    });
    expect(read.status).toBe(200);
    expect((await list(agentCookie, demo.accountId, "?filter=unread")).body.data.total).toBe(0);
    const thread = await fetch(`${base(demo.accountId)}/${id}`, { headers: { cookie: agentCookie } });
    const last = ((await thread.json()) as { data: any }).data.messages.at(-1);
    expect(last).toMatchObject({
      body: "Hello!",
      userType: "agent",
      referenceId: "c0123456789abcdef",
      senderName: expect.any(String),
    });
    // The change log replays it after a position.
    const changes = await fetch(`${base(demo.accountId)}/changes?after=0`, { headers: { cookie: agentCookie } });
    const data = ((await changes.json()) as { data: any }).data;
    expect(data.tooOld).toBe(false);
    expect(data.changes.some((c: any) => c.message.referenceId === "c0123456789abcdef")).toBe(true);
  });

  it("another account's conversation is not found; no session is 401", async () => {
    const { body } = await list(agentCookie);
    const id = body.data.conversations[0].id;
    // The other account's user, on their own account's path, with this account's conversation id.
    const foreign = await fetch(`${base(other.accountId)}/${id}`, { headers: { cookie: otherCookie } });
    expect(foreign.status).toBe(404);
    const foreignReply = await fetch(`${base(other.accountId)}/${id}/messages`, {
      method: "POST",
      headers: { cookie: otherCookie, "content-type": "application/json" },
      body: JSON.stringify({ body: "x", clientId: "c0123456789abcdea" }),
    });
    expect(foreignReply.status).toBe(404);
    // And this account's path with the other user's session is refused.
    expect((await list(otherCookie, demo.accountId)).status).toBe(403);
    expect((await fetch(base(demo.accountId))).status).toBe(401);
    expect((await fetch(`${base(demo.accountId)}/${id}`)).status).toBe(401);
  });

  it("a socket without a session cookie is refused; one with the portal session connects", async () => {
    const refused = io(server.baseUrl, { path: "/socket.io", transports: ["websocket"], reconnection: false });
    const error = await new Promise<Error>((resolve) => refused.on("connect_error", resolve));
    expect(error.message).toBe("Unauthorized");
    refused.close();
    const forged = io(server.baseUrl, {
      path: "/socket.io",
      transports: ["websocket"],
      reconnection: false,
      extraHeaders: { cookie: "next-auth.session-token=forged" },
    });
    expect((await new Promise<Error>((resolve) => forged.on("connect_error", resolve))).message).toBe("Unauthorized");
    forged.close();
    const ok = io(server.baseUrl, {
      path: "/socket.io",
      transports: ["websocket"],
      extraHeaders: { cookie: agentCookie },
    });
    await new Promise<void>((resolve, reject) => {
      ok.on("connect", resolve);
      ok.on("connect_error", reject);
    });
    const answer = (await ok.timeout(5000).emitWithAck("catch-up", { after: 0 })) as {
      tooOld: boolean;
      changes: unknown[];
    };
    expect(answer.tooOld).toBe(false);
    expect(answer.changes.length).toBeGreaterThan(0);
    ok.close();
  });

  it("a user disabled while connected loses the live socket within seconds", async () => {
    const email = "leaver@conversations.test";
    await createUser(server.database.url, {
      accountId: demo.accountId,
      email,
      password: agent.password,
      role: "agent",
    });
    const cookie = await portalCookie(server, email, agent.password);
    const socket = io(server.baseUrl, {
      path: "/socket.io",
      transports: ["websocket"],
      reconnection: false,
      extraHeaders: { cookie },
    });
    await new Promise<void>((resolve, reject) => {
      socket.on("connect", resolve);
      socket.on("connect_error", reject);
    });
    const dropped = new Promise<string>((resolve) => socket.on("disconnect", resolve));
    const users = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/users`, {
      headers: { apikey: demo.apiKey },
    });
    const { data } = (await users.json()) as { data: { users: { id: string; email: string }[] } };
    const leaver = data.users.find((u) => u.email === email)!;
    const disabled = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/users/${leaver.id}`, {
      method: "PATCH",
      headers: { apikey: demo.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ disabled: true }),
    });
    expect(disabled.status).toBe(200);
    expect(await dropped).toBe("io server disconnect");
  }, 20_000);
});
