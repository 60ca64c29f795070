/* eslint-disable @typescript-eslint/no-explicit-any -- envelopes read loosely in assertions */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";
import { bindTo, releaseFactories } from "../helpers/factories";
import { db } from "../../lib/db/client";

let server: RunningServer;
let demo: DemoCredentials;
let other: DemoCredentials;
let adminCookie: string;
let agentCookie: string;
let agent2Cookie: string;
let otherCookie: string;
const agent = { email: "ana@canned.test", password: "agent-password-123", name: "Ana Lima" };
const agent2 = { email: "ben@canned.test", password: "agent-password-456", name: "Ben Okafor" };

beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  other = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
  await createUser(server.database.url, { accountId: demo.accountId, ...agent2, role: "agent" });
  [adminCookie, agentCookie, agent2Cookie, otherCookie] = await Promise.all([
    portalCookie(server, demo.email, demo.password),
    portalCookie(server, agent.email, agent.password),
    portalCookie(server, agent2.email, agent2.password),
    portalCookie(server, other.email, other.password),
  ]);
  // Each CLI call is a process of its own: generous on a busy machine.
}, 240_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const api = (accountId: string, rest: string) => `${server.baseUrl}/api/admin/accounts/${accountId}${rest}`;

async function call(cookie: string, method: string, path: string, body?: unknown, accountId = demo.accountId) {
  const response = await fetch(api(accountId, path), {
    method,
    headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { status: string; data: any } };
}

const shortcuts = async (cookie: string) =>
  (await call(cookie, "GET", "/canned-replies")).body.data.cannedReplies.map((r: any) => [r.shortcut, r.scope]);

describe("canned replies", () => {
  let accountWideId: string;

  it("an admin's reply is account-wide and every staff member sees it; an agent cannot change it", async () => {
    const made = await call(adminCookie, "POST", "/canned-replies", {
      shortcut: "hours",
      text: "Hi {{contact.first_name}}, we are open 9 to 5. {{agent.name}}",
    });
    expect(made.status).toBe(200);
    expect(made.body.data.cannedReply).toMatchObject({ shortcut: "hours", scope: "account", editable: true });
    accountWideId = made.body.data.cannedReply.id;
    const seen = await call(agentCookie, "GET", "/canned-replies");
    expect(seen.body.data.cannedReplies).toEqual([
      expect.objectContaining({ id: accountWideId, scope: "account", editable: false }),
    ]);
    const edit = await call(agentCookie, "PATCH", `/canned-replies/${accountWideId}`, { text: "changed" });
    expect(edit.status).toBe(403);
    expect(edit.body.status).toBe("Forbidden");
    expect((await call(agentCookie, "DELETE", `/canned-replies/${accountWideId}`)).status).toBe(403);
    const asAccount = await call(agentCookie, "POST", "/canned-replies", {
      shortcut: "x",
      text: "y",
      scope: "account",
    });
    expect(asAccount.status).toBe(403);
  });

  it("an agent's replies are personal: only they see, change and delete them", async () => {
    const made = await call(agentCookie, "POST", "/canned-replies", { shortcut: "bye", text: "Bye {{contact.name}}" });
    expect(made.status).toBe(200);
    expect(made.body.data.cannedReply).toMatchObject({ scope: "personal", editable: true });
    const id = made.body.data.cannedReply.id;
    expect(await shortcuts(agentCookie)).toEqual([
      ["bye", "personal"],
      ["hours", "account"],
    ]);
    expect(await shortcuts(agent2Cookie)).toEqual([["hours", "account"]]);
    expect(await shortcuts(adminCookie)).toEqual([["hours", "account"]]);
    // Another staff member's personal reply is not found, for an admin too.
    expect((await call(agent2Cookie, "PATCH", `/canned-replies/${id}`, { text: "mine" })).status).toBe(404);
    expect((await call(adminCookie, "DELETE", `/canned-replies/${id}`)).status).toBe(404);
    // The same shortcut may be another agent's personal one; not twice in what one user sees.
    expect((await call(agent2Cookie, "POST", "/canned-replies", { shortcut: "bye", text: "Ciao" })).status).toBe(200);
    const twice = await call(agentCookie, "POST", "/canned-replies", { shortcut: "BYE", text: "again" });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ status: "InvalidRequest", data: { field: "shortcut" } });
    const clash = await call(agentCookie, "POST", "/canned-replies", { shortcut: "hours", text: "mine" });
    expect(clash.body.data.field).toBe("shortcut");
    // An account-wide one may not take a shortcut someone already has.
    const adminClash = await call(adminCookie, "POST", "/canned-replies", { shortcut: "bye", text: "x" });
    expect(adminClash.status).toBe(400);
    const edited = await call(agentCookie, "PATCH", `/canned-replies/${id}`, {
      text: "See you {{contact.first_name}}",
    });
    expect(edited.body.data.cannedReply.text).toBe("See you {{contact.first_name}}");
    expect((await call(agentCookie, "DELETE", `/canned-replies/${id}`)).status).toBe(200);
    expect(await shortcuts(agentCookie)).toEqual([["hours", "account"]]);
  });

  it("an admin may keep a personal reply, and change an account-wide one", async () => {
    const mine = await call(adminCookie, "POST", "/canned-replies", {
      shortcut: "sig",
      text: "— the admin",
      scope: "personal",
    });
    expect(mine.body.data.cannedReply.scope).toBe("personal");
    expect(await shortcuts(agentCookie)).toEqual([["hours", "account"]]);
    const edited = await call(adminCookie, "PATCH", `/canned-replies/${accountWideId}`, { shortcut: "open-hours" });
    expect(edited.status).toBe(200);
    expect(await shortcuts(agentCookie)).toEqual([["open-hours", "account"]]);
  });

  it("another account's replies are not found and the path's account is checked", async () => {
    expect(
      (await call(otherCookie, "GET", "/canned-replies", undefined, other.accountId)).body.data.cannedReplies,
    ).toEqual([]);
    const viaOther = await call(
      otherCookie,
      "PATCH",
      `/canned-replies/${accountWideId}`,
      { text: "x" },
      other.accountId,
    );
    expect(viaOther.status).toBe(404);
    expect(viaOther.body.status).toBe("NotFound");
    expect(
      (await call(otherCookie, "DELETE", `/canned-replies/${accountWideId}`, undefined, other.accountId)).status,
    ).toBe(404);
    expect((await call(otherCookie, "GET", "/canned-replies")).status).toBe(403);
  });

  it("bad input gets the error envelope, never a 500", async () => {
    for (const body of [
      {},
      { shortcut: "has space", text: "x" },
      { shortcut: "ok", text: "   " },
      { shortcut: "ok", text: "x".repeat(1601) },
      { shortcut: "ok", text: "x", scope: "everyone" },
      { shortcut: "ok", text: "x", extra: 1 },
      { shortcut: 5, text: "x" },
    ]) {
      const answer = await call(adminCookie, "POST", "/canned-replies", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.status).toBe("InvalidRequest");
    }
    const empty = await call(adminCookie, "PATCH", `/canned-replies/${accountWideId}`, {});
    expect(empty.status).toBe(400);
    const notJson = await fetch(api(demo.accountId, "/canned-replies"), {
      method: "POST",
      headers: { cookie: adminCookie, "content-type": "application/json" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect((await call(adminCookie, "PATCH", "/canned-replies/nope", { text: "x" })).status).toBe(404);
  });
});

describe("internal notes", () => {
  let conversationId: string;

  beforeAll(async () => {
    await parley(
      ["inbound", "--from", "+14155550901", "--to", `+${demo.numbers[0]!.replace("+", "")}`, "--body", "hello"],
      server.database.url,
    );
    const list = await call(agentCookie, "GET", "/conversations");
    conversationId = list.body.data.conversations[0].id;
  }, 120_000);

  it("a note is never sent to the phone, and its @mentions are recorded for the staff mentioned", async () => {
    await bindTo(server);
    const messagesBefore = await db().message.count({ where: { accountId: demo.accountId } });
    const sdrsBefore = await db().sdr.count();
    const added = await call(adminCookie, "POST", `/conversations/${conversationId}/notes`, {
      body: "@Ana please call them back; cc @ben okafor and @nobody",
    });
    expect(added.status).toBe(200);
    const note = added.body.data.note;
    expect(note).toMatchObject({ conversationId, authorName: "Demo admin" });
    expect(note.mentions.map((m: any) => m.name).sort()).toEqual(["Ana Lima", "Ben Okafor"]);
    expect(await db().message.count({ where: { accountId: demo.accountId } })).toBe(messagesBefore);
    expect(await db().sdr.count()).toBe(sdrsBefore);
    expect(await db().noteMention.count({ where: { noteId: note.id } })).toBe(2);
    const audit = await db().auditEvent.findFirst({ where: { accountId: demo.accountId, action: "note.added" } });
    expect(audit).toMatchObject({ target: conversationId, detail: "mentions 2" });

    // The thread shows it among the messages; the agent has one unread mention until they mark it read.
    const thread = await call(agentCookie, "GET", `/conversations/${conversationId}`);
    expect(thread.body.data.notes.map((n: any) => n.body)).toEqual([note.body]);
    expect(thread.body.data.messages.some((m: any) => m.body.includes("call them back"))).toBe(false);
    const mentions = await call(agentCookie, "GET", "/mentions");
    expect(mentions.body.data).toMatchObject({ count: 1, mentions: [{ conversationId, authorName: "Demo admin" }] });
    expect((await call(adminCookie, "GET", "/mentions")).body.data.count).toBe(0);
    const read = await call(agentCookie, "POST", "/mentions/read", { conversationId });
    expect(read.body.data.marked).toBe(1);
    expect((await call(agentCookie, "GET", "/mentions")).body.data.count).toBe(0);
    expect((await call(agent2Cookie, "GET", "/mentions")).body.data.count).toBe(1);
  });

  it("an agent adds notes too; mentioning yourself records nothing; a shared first name mentions nobody", async () => {
    await createUser(server.database.url, {
      accountId: demo.accountId,
      email: "ana2@canned.test",
      password: "agent-password-789",
      role: "agent",
      name: "Ana Souza",
    });
    const added = await call(agentCookie, "POST", `/conversations/${conversationId}/notes`, {
      body: "Note to self @Ana Lima; and @Ana? Ask @Ana Souza.",
    });
    expect(added.status).toBe(200);
    expect(added.body.data.note.mentions.map((m: any) => m.name)).toEqual(["Ana Souza"]);
    const notes = await call(agent2Cookie, "GET", `/conversations/${conversationId}/notes`);
    expect(notes.body.data.notes).toHaveLength(2);
  }, 120_000);

  it("another account's conversation is not found; bad input gets the envelope", async () => {
    const foreign = await call(
      otherCookie,
      "POST",
      `/conversations/${conversationId}/notes`,
      { body: "hi" },
      other.accountId,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.status).toBe("NotFound");
    expect(
      (await call(otherCookie, "GET", `/conversations/${conversationId}/notes`, undefined, other.accountId)).status,
    ).toBe(404);
    for (const body of [{}, { body: "  " }, { body: "x".repeat(4001) }, { body: 3 }, { body: "ok", extra: true }]) {
      const answer = await call(adminCookie, "POST", `/conversations/${conversationId}/notes`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.status).toBe("InvalidRequest");
    }
    expect((await call(adminCookie, "POST", "/mentions/read", { conversationId: 5 })).status).toBe(400);
    const key = await fetch(api(demo.accountId, `/conversations/${conversationId}/notes`), {
      method: "POST",
      headers: { apikey: demo.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ body: "from a script" }),
    });
    expect(key.status).toBe(403);
  });
});
