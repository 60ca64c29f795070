/* eslint-disable @typescript-eslint/no-explicit-any -- envelopes read loosely in assertions */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, type DemoCredentials } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";
import { call, releaseFactories } from "../helpers/factories";

// The team inbox through the portal's routes, as staff use it: take, assign, resolve, reopen on a new message,
// replies that take a conversation, what agents see, automatic assignment and its limit.

let server: RunningServer;
let demo: DemoCredentials;
let other: DemoCredentials;
let admin: string;
let ben: string;
let cleo: string;
let otherAdmin: string;
const staff: Record<string, string> = {};

beforeAll(async () => {
  server = await startServer();
  // One after the other: the second demo account's admin e-mail depends on the first.
  demo = await createDemoAccount(server.database.url);
  other = await createDemoAccount(server.database.url);
  await Promise.all(
    ["Ben", "Cleo"].map((name) =>
      createUser(server.database.url, {
        accountId: demo.accountId,
        email: `${name.toLowerCase()}@assign.test`,
        password: "agent-password-123",
        role: "agent",
        name,
      }),
    ),
  );
  [admin, ben, cleo, otherAdmin] = await Promise.all([
    portalCookie(server, demo.email, demo.password),
    portalCookie(server, "ben@assign.test", "agent-password-123"),
    portalCookie(server, "cleo@assign.test", "agent-password-123"),
    portalCookie(server, other.email, other.password),
  ]);
  const res = await call(server, "GET", `/api/admin/accounts/${demo.accountId}/conversations/staff`, {
    headers: { cookie: ben },
  });
  expect(res.status, res.text).toBe(200);
  for (const s of res.json.data.staff) staff[s.name] = s.id;
  // Several CLI processes and sign-ins: slow on a busy machine.
}, 240_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const conversations = `/api/admin/accounts/{account}/conversations`;
const path = (rest = "", account = demo.accountId) => conversations.replace("{account}", account) + rest;

let phone = 14155550100;
/** A text from a new phone (or `from`) to the account's first number, through the phone simulator. */
async function text(body: string, from?: string): Promise<{ conversationId: string; from: string }> {
  const number = from ?? String(phone++);
  const res = await call(server, "POST", `/api/admin/accounts/${demo.accountId}/simulator/inbound`, {
    headers: { cookie: admin },
    body: { phone: `+${number}`, accountNumber: `+${demo.numbers[0]!.replace("+", "")}`, text: body },
  });
  expect(res.status, res.text).toBe(200);
  return { conversationId: res.json.data.conversationId, from: number };
}

const assign = (cookie: string, id: string, assigneeId: string | null) =>
  call(server, "PATCH", path(`/${id}/assignee`), { headers: { cookie }, body: { assigneeId } });
const setStatus = (cookie: string, id: string, status: string) =>
  call(server, "PATCH", path(`/${id}/status`), { headers: { cookie }, body: { status } });
const thread = (cookie: string, id: string) => call(server, "GET", path(`/${id}`), { headers: { cookie } });
const list = (cookie: string, query = "") => call(server, "GET", path(query), { headers: { cookie } });
const settings = (body: Record<string, unknown>) =>
  call(server, "PUT", `/api/admin/accounts/${demo.accountId}`, { headers: { cookie: admin }, body });

describe("conversation status and assignment", () => {
  it("an agent takes an unassigned conversation; another agent cannot take it; an admin reassigns", async () => {
    const { conversationId: id } = await text("Hello, anyone there?");
    const before = await thread(ben, id);
    expect(before.json.data.conversation).toMatchObject({ status: "open", assigneeId: null, assigneeName: null });

    const taken = await assign(ben, id, staff.Ben!);
    expect(taken.status, taken.text).toBe(200);
    expect(taken.json.data).toMatchObject({ assigneeId: staff.Ben, assigneeName: "Ben", status: "open" });

    const stolen = await assign(cleo, id, staff.Cleo!);
    expect(stolen.status).toBe(403);
    expect(stolen.json.statusCode).toBe(403);
    expect(stolen.json.data.error_message).toMatch(/already assigned/);
    const handBack = await assign(cleo, id, null);
    expect(handBack.status).toBe(403);
    expect(handBack.json.data.error_message).toMatch(/only unassign their own/);

    const moved = await assign(admin, id, staff.Cleo!);
    expect(moved.status, moved.text).toBe(200);
    const after = await thread(cleo, id);
    expect(after.json.data.conversation).toMatchObject({ assigneeId: staff.Cleo, assigneeName: "Cleo" });
    expect(after.json.data.activity.map((a: any) => [a.kind, a.actorName, a.targetName])).toEqual([
      ["assigned", "Ben", "Ben"],
      ["assigned", "Demo admin", "Cleo"],
    ]);

    const audit = await call(server, "GET", `/api/admin/accounts/${demo.accountId}/audit?action=conversation.`, {
      headers: { cookie: admin },
    });
    expect(audit.status, audit.text).toBe(200);
    const actions = audit.json.data.events.map((e: any) => [e.action, e.actor]);
    expect(actions).toContainEqual(["conversation.assigned", "user:ben@assign.test"]);
    expect(actions).toContainEqual(["conversation.assigned", `user:${demo.email}`]);
  });

  it("resolve moves it to Resolved; a new inbound message reopens it", async () => {
    const first = await text("My order is late");
    const id = first.conversationId;
    const resolved = await setStatus(ben, id, "resolved");
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.json.data.status).toBe("resolved");

    const inResolved = await list(ben, "?view=resolved");
    expect(inResolved.json.data.conversations.map((c: any) => c.id)).toContain(id);
    expect((await list(ben, "?view=all")).json.data.conversations.map((c: any) => c.id)).not.toContain(id);

    await text("Actually it still has not arrived", first.from);
    const reopened = await thread(ben, id);
    expect(reopened.json.data.conversation.status).toBe("open");
    expect(reopened.json.data.activity.map((a: any) => [a.kind, a.actorName])).toEqual([
      ["resolved", "Ben"],
      ["reopened", null],
    ]);
    const all = await list(ben, "?view=all");
    expect(all.json.data.conversations.map((c: any) => c.id)).toContain(id);
    expect((await list(ben, "?view=resolved")).json.data.conversations.map((c: any) => c.id)).not.toContain(id);

    // Snoozing keeps it open until the next message, which ends the snooze.
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const snoozed = await call(server, "POST", path(`/${id}/snooze`), { headers: { cookie: ben }, body: { until } });
    expect(snoozed.status, snoozed.text).toBe(200);
    expect(snoozed.json.data.snoozedUntil).toBe(until);
    // Snoozed, it leaves the open views for Snoozed until then.
    const ids = async (view: string) =>
      (await list(ben, `?view=${view}&count=100`)).json.data.conversations.map((c: any) => c.id);
    expect(await ids("all")).not.toContain(id);
    expect(await ids("snoozed")).toContain(id);
    expect((await list(ben)).json.data.counts.snoozed).toBeGreaterThanOrEqual(1);
    await text("Hello?", first.from);
    expect((await thread(ben, id)).json.data.conversation.snoozedUntil).toBeNull();
    expect(await ids("all")).toContain(id);
    expect(await ids("snoozed")).not.toContain(id);
  });

  it("replying to an unassigned conversation assigns it to the one who replied", async () => {
    const { conversationId: id } = await text("Can someone help?");
    const reply = await call(server, "POST", path(`/${id}/messages`), {
      headers: { cookie: cleo },
      body: { body: "Sure, I can.", clientId: "assignreply0001" },
    });
    expect(reply.status, reply.text).toBe(200);
    const after = await thread(admin, id);
    expect(after.json.data.conversation).toMatchObject({ assigneeId: staff.Cleo, assigneeName: "Cleo" });
    expect(after.json.data.activity.map((a: any) => [a.kind, a.actorName, a.targetName])).toEqual([
      ["assigned", "Cleo", "Cleo"],
    ]);
    const mine = await list(cleo, "?view=mine");
    expect(mine.json.data.conversations.map((c: any) => c.id)).toContain(id);
    expect(mine.json.data.conversations.find((c: any) => c.id === id).assigneeName).toBe("Cleo");
  });

  it("views count open conversations by assignee and the resolved ones", async () => {
    const res = await list(ben);
    expect(res.status).toBe(200);
    const { counts } = res.json.data;
    const count = async (view: string) => (await list(ben, `?view=${view}&count=100`)).json.data.total;
    expect(counts).toEqual({
      mine: await count("mine"),
      unassigned: await count("unassigned"),
      all: await count("all"),
      snoozed: await count("snoozed"),
      resolved: await count("resolved"),
    });
    expect(counts.all).toBeGreaterThanOrEqual(counts.mine + counts.unassigned);
    // The unread filter keeps working inside a view.
    const unread = await list(ben, "?view=unassigned&filter=unread");
    expect(unread.status).toBe(200);
  });

  it("an account that shows agents only theirs hides other agents' conversations from lists and threads", async () => {
    const { conversationId: bens } = await text("For Ben");
    await assign(ben, bens, staff.Ben!);
    const { conversationId: open } = await text("For anyone");
    expect((await settings({ conversationVisibility: "assigned" })).status).toBe(200);
    try {
      const cleoList = (await list(cleo, "?count=100")).json.data.conversations.map((c: any) => c.id);
      expect(cleoList).not.toContain(bens);
      expect(cleoList).toContain(open);
      expect((await thread(cleo, bens)).status).toBe(404);
      const reply = await call(server, "POST", path(`/${bens}/messages`), {
        headers: { cookie: cleo },
        body: { body: "Not mine", clientId: "assignhidden001" },
      });
      expect(reply.status).toBe(404);
      expect((await assign(cleo, bens, staff.Cleo!)).status).toBe(404);
      // Nor its internal notes, to read or to write.
      expect((await call(server, "GET", path(`/${bens}/notes`), { headers: { cookie: cleo } })).status).toBe(404);
      const note = await call(server, "POST", path(`/${bens}/notes`), {
        headers: { cookie: cleo },
        body: { body: "x" },
      });
      expect(note.status).toBe(404);
      // Ben and the admin still see it.
      expect((await thread(ben, bens)).status).toBe(200);
      expect((await list(admin, "?count=100")).json.data.conversations.map((c: any) => c.id)).toContain(bens);
    } finally {
      await settings({ conversationVisibility: "all" });
    }
    expect((await thread(cleo, bens)).status).toBe(200);
  });

  it("new inbound conversations go round-robin to agents under the open-conversation limit", async () => {
    // Only the agents' open conversations count: resolve everything so far.
    for (const c of (await list(admin, "?count=100")).json.data.conversations) await setStatus(admin, c.id, "resolved");
    expect((await settings({ autoAssign: true, agentOpenLimit: 1 })).status).toBe(200);
    try {
      const a = await text("first");
      const b = await text("second");
      const c = await text("third");
      const assignees = await Promise.all(
        [a, b, c].map(async (t) => (await thread(admin, t.conversationId)).json.data.conversation.assigneeName),
      );
      expect(assignees.slice(0, 2).sort()).toEqual(["Ben", "Cleo"]);
      // Both have one open: the third waits unassigned.
      expect(assignees[2]).toBeNull();
      const activity = (await thread(admin, a.conversationId)).json.data.activity;
      expect(activity.map((x: any) => [x.kind, x.actorName])).toEqual([["assigned", null]]);
    } finally {
      await settings({ autoAssign: false, agentOpenLimit: 0 });
    }
  });

  it("the list keeps the conversations whose contact has a tag, whatever its case", async () => {
    const vip = await text("Tagged");
    const plain = await text("Not tagged");
    const saved = await call(server, "PUT", `/api/admin/accounts/${demo.accountId}/contacts/${vip.from}`, {
      headers: { cookie: admin },
      body: { name: "Vera", tags: ["VIP", "north"] },
    });
    expect(saved.status, saved.text).toBe(200);
    const tagged = async (tag: string) =>
      (await list(ben, `?count=100&tag=${encodeURIComponent(tag)}`)).json.data.conversations.map((c: any) => c.id);
    expect(await tagged("vip")).toEqual([vip.conversationId]);
    expect(await tagged("north")).toEqual([vip.conversationId]);
    // A whole tag, not a part of one.
    expect(await tagged("nor")).toEqual([]);
    expect(await tagged("vip")).not.toContain(plain.conversationId);
  });

  it("staff start a conversation from the number they pick; it is theirs, and a second start joins it", async () => {
    const to = `+${phone++}`;
    const from = demo.numbers[0]!.startsWith("+") ? demo.numbers[0]! : `+${demo.numbers[0]}`;
    const start = (cookie: string, body: Record<string, unknown>) =>
      call(server, "POST", path(), { headers: { cookie }, body });
    const first = await start(cleo, { from, to, body: "Hi, this is Cleo from the shop.", clientId: "startconv00001" });
    expect(first.status, first.text).toBe(200);
    expect(first.json.data.message).toMatchObject({ status: "accepted", to });
    const id = first.json.data.conversationId;
    const opened = await thread(cleo, id);
    expect(opened.json.data.conversation).toMatchObject({ remoteNumber: to.slice(1), assigneeName: "Cleo" });
    expect(opened.json.data.messages.map((m: any) => [m.body, m.userType])).toEqual([
      ["Hi, this is Cleo from the shop.", "agent"],
    ]);
    // Sent again with the same client id (a lost answer): not sent twice.
    const retried = await start(cleo, {
      from,
      to,
      body: "Hi, this is Cleo from the shop.",
      clientId: "startconv00001",
    });
    expect(retried.json.data).toMatchObject({
      conversationId: id,
      message: { messageId: first.json.data.message.messageId },
    });
    const again = await start(admin, { from, to, body: "And the admin.", clientId: "startconv00002" });
    expect(again.status, again.text).toBe(200);
    expect(again.json.data.conversationId).toBe(id);
    expect((await thread(admin, id)).json.data.messages).toHaveLength(2);

    // Bad input: the field that is wrong.
    const badTo = await start(cleo, { from, to: "4155550123", body: "x", clientId: "startconv00003" });
    expect(badTo.status).toBe(400);
    expect(badTo.json.data.field).toBe("to");
    const notOurs = await start(cleo, { from: "+14155559999", to, body: "x", clientId: "startconv00004" });
    expect(notOurs.status).toBe(400);
    expect(notOurs.json.data.field).toBe("from");
    const empty = await start(cleo, { from, to, body: " ", clientId: "startconv00005" });
    expect(empty.status).toBe(400);
    expect(empty.json.data.field).toBe("body");
  });

  it("another account's conversation is 404; bad input gets the error envelope", async () => {
    const { conversationId: id } = await text("Private");
    const foreign = await call(server, "PATCH", path(`/${id}/status`, other.accountId), {
      headers: { cookie: otherAdmin },
      body: { status: "resolved" },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json.statusCode).toBe(404);
    const wrongAccount = await setStatus(otherAdmin, id, "resolved");
    expect(wrongAccount.status).toBe(403);

    const bad = await setStatus(admin, id, "closed");
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ statusCode: 400, statusMessage: "Invalid Request" });
    expect(bad.json.data.field).toBe("status");
    const unknownUser = await assign(admin, id, "no-such-user");
    expect(unknownUser.status).toBe(400);
    expect(unknownUser.json.data.field).toBe("assigneeId");
    const extra = await call(server, "PATCH", path(`/${id}/assignee`), {
      headers: { cookie: admin },
      body: { assigneeId: null, force: true },
    });
    expect(extra.status).toBe(400);
    const past = await call(server, "POST", path(`/${id}/snooze`), {
      headers: { cookie: admin },
      body: { until: "2001-01-01T00:00:00Z" },
    });
    expect(past.status).toBe(400);
    const badView = await list(admin, "?view=closed");
    expect(badView.status).toBe(400);
    expect(badView.json.data.field).toBe("view");
  });
});
