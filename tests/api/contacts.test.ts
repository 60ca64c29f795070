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
let otherCookie: string;
const agent = { email: "agent@contacts.test", password: "agent-password-123" };

beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  other = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
  adminCookie = await portalCookie(server, demo.email, demo.password);
  agentCookie = await portalCookie(server, agent.email, agent.password);
  otherCookie = await portalCookie(server, other.email, other.password);
}, 240_000);

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

const base = (accountId = demo.accountId) => `${server.baseUrl}/api/admin/accounts/${accountId}/contacts`;

async function request(method: string, url: string, cookie: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // CSV
  }
  return { status: response.status, json, text, headers: response.headers };
}

const importCsv = (csv: string, cookie = agentCookie) => request("POST", `${base()}/import`, cookie, { csv });
const search = async (q: string) =>
  (await request("GET", `${base()}?q=${encodeURIComponent(q)}`, agentCookie)).json.data.contacts as any[];

async function storedContacts() {
  await bindTo(server);
  return db().contact.findMany({ where: { accountId: demo.accountId }, orderBy: { number: "asc" } });
}

const FILE = [
  "name,phone,email,tags",
  '"Doe, Jane",+14155550101,jane@example.com,vip;billing',
  "Bad Phone,12345,bad@example.com,",
  "Ben Ito,14155550102,,",
  "Bad Mail,+14155550103,not-an-email,x",
  "=HYPERLINK(1),+14155550104,,-lead",
  "Too,Many,Columns,Here,Extra",
  "Ben Again,+1 415 555 0102,,",
].join("\r\n");

describe("contacts", () => {
  it("imports the good rows of a CSV file and reports each bad row with its line number", async () => {
    const { status, json } = await importCsv(FILE);
    expect(status).toBe(200);
    expect(json.data).toMatchObject({ created: 3, updated: 0, unchanged: 0 });
    expect(json.data.problems.map((p: any) => p.line)).toEqual([3, 5, 7, 8]);
    expect(json.data.problems[0].message).toContain("12345");
    expect(json.data.problems[1].message).toContain("not-an-email");
    expect(json.data.problems[3].message).toContain("line 4");
    // Nothing of a bad row is stored.
    const stored = await storedContacts();
    expect(stored.map((c) => [c.number, c.name, c.email, JSON.parse(c.tags)])).toEqual([
      ["14155550101", "Doe, Jane", "jane@example.com", ["vip", "billing"]],
      ["14155550102", "Ben Ito", "", []],
      ["14155550104", "=HYPERLINK(1)", "", ["-lead"]],
    ]);
  });

  it("importing the same file again changes nothing", async () => {
    const before = await storedContacts();
    const { json } = await importCsv(FILE);
    expect(json.data).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
    expect(json.data.problems).toHaveLength(4);
    expect(await storedContacts()).toEqual(before);
  });

  it("exports the same columns, quoted, with formulas defused, and the export imports back unchanged", async () => {
    const { status, text, headers } = await request("GET", `${base()}/export`, agentCookie);
    expect(status).toBe(200);
    expect(headers.get("content-type")).toContain("text/csv");
    const lines = text.trimEnd().split("\r\n");
    expect(lines).toEqual([
      "name,phone,email,tags",
      '"Doe, Jane","+14155550101","jane@example.com","vip;billing"',
      '"Ben Ito","+14155550102",,',
      `"'=HYPERLINK(1)","+14155550104",,"'-lead"`,
    ]);
    const again = await importCsv(text);
    expect(again.json.data).toMatchObject({ created: 0, updated: 0, unchanged: 3, problems: [] });
  });

  it("an edited contact is found by name, number, e-mail, company and tag; a conversation's number is an unnamed contact", async () => {
    await parley(
      ["inbound", "--from", "+14155550199", "--to", `+${demo.numbers[0]!.replace("+", "")}`, "--body", "hi"],
      server.database.url,
    );
    const unnamed = await search("550199");
    expect(unnamed).toEqual([expect.objectContaining({ number: "14155550199", saved: false, name: "" })]);
    const one = await request("GET", `${base()}/+14155550199`, agentCookie);
    expect(one.json.data.contact).toMatchObject({ number: "14155550199", saved: false, optedOut: false });

    const saved = await request("PUT", `${base()}/14155550199`, agentCookie, {
      name: "Carla Ruiz",
      email: "carla@acme.test",
      company: "Acme Freight",
      tags: ["wholesale", "Priority"],
      note: "Calls after 5 pm",
    });
    expect(saved.status).toBe(200);
    expect(saved.json.data.contact).toMatchObject({ name: "Carla Ruiz", saved: true, tags: ["wholesale", "Priority"] });
    for (const q of ["carla", "acme freight", "CARLA@ACME", "priority", "(415) 555-0199"]) {
      expect(
        (await search(q)).map((c) => c.number),
        q,
      ).toEqual(["14155550199"]);
    }
    expect((await search("vip")).map((c) => c.name)).toEqual(["Doe, Jane"]);
    // Named contacts come first, by name.
    const all = (await request("GET", `${base()}?count=100`, agentCookie)).json.data;
    // (Where punctuation sorts depends on the database's collation.)
    const names = all.contacts.map((c: any) => c.name).filter((n: string) => !n.startsWith("="));
    expect(names).toEqual(["Ben Ito", "Carla Ruiz", "Doe, Jane"]);
    expect(all.total).toBe(4);
    // The conversation list and the thread show the name; the list's search finds it by name.
    const conversations = `${server.baseUrl}/api/admin/accounts/${demo.accountId}/conversations`;
    const found = (await request("GET", `${conversations}?q=ruiz`, agentCookie)).json.data.conversations;
    expect(found.map((c: any) => [c.remoteNumber, c.contactName])).toEqual([["14155550199", "Carla Ruiz"]]);
    const thread = (await request("GET", `${conversations}/${found[0].id}`, agentCookie)).json.data;
    expect(thread.conversation.contactName).toBe("Carla Ruiz");
    expect((await request("GET", `${conversations}?q=(415) 555-0199`, agentCookie)).json.data.total).toBe(1);
    // Messages asks for the names of the numbers it shows.
    const known = (
      await request(
        "GET",
        `${base()}?numbers=${encodeURIComponent("14155550199,+14155550101,19999999999")}`,
        agentCookie,
      )
    ).json.data;
    expect(known.contacts.map((c: any) => c.name)).toEqual(["Doe, Jane", "Carla Ruiz"]);
    // A partial save keeps the other fields.
    await request("PUT", `${base()}/14155550199`, agentCookie, { note: "" });
    expect((await search("carla"))[0]).toMatchObject({ company: "Acme Freight", note: "" });
    // Each save is in the audit trail, with who made it.
    const audit = await request(
      "GET",
      `${server.baseUrl}/api/admin/accounts/${demo.accountId}/audit?action=contact.updated`,
      adminCookie,
    );
    expect(audit.status).toBe(200);
    const saves = audit.json.data.events.filter((e: any) => e.target === "14155550199");
    expect(saves).toHaveLength(2);
    expect(saves[0].actor).toContain(agent.email);
  }, 120_000); // The CLI writing the inbound message starts a process of its own: slow on a busy machine.

  it("a contact that opted out shows it", async () => {
    const out = await request(
      "POST",
      `${server.baseUrl}/api/admin/accounts/${demo.accountId}/opt/numbers`,
      adminCookie,
      {
        number: "+14155550102",
        action: "out",
      },
    );
    expect(out.status).toBe(200);
    expect((await search("Ben Ito"))[0]).toMatchObject({ optedOut: true });
    expect((await request("GET", `${base()}/14155550102`, agentCookie)).json.data.contact.optedOut).toBe(true);
  });

  it("forgetting a contact leaves the number unnamed", async () => {
    const gone = await request("DELETE", `${base()}/14155550104`, agentCookie);
    expect(gone.json.data.deleted).toBe(true);
    expect((await storedContacts()).map((c) => c.number)).not.toContain("14155550104");
  });

  it("another account's contacts are refused", async () => {
    for (const [method, path, body] of [
      ["GET", "", undefined],
      ["GET", "/14155550101", undefined],
      ["PUT", "/14155550101", { name: "Mallory" }],
      ["DELETE", "/14155550101", undefined],
      ["POST", "/import", { csv: "name,phone,email,tags\nMallory,+14155550101,," }],
      ["GET", "/export", undefined],
    ] as const) {
      const { status, json } = await request(method, `${base()}${path}`, otherCookie, body);
      expect(status, `${method} ${path}`).toBe(403);
      expect(json.status).toBe("Forbidden");
    }
    expect((await storedContacts()).find((c) => c.number === "14155550101")?.name).toBe("Doe, Jane");
    // The other account sees only its own (none).
    expect((await request("GET", base(other.accountId), otherCookie)).json.data.total).toBe(0);
  });

  it("bad input gets the error envelope", async () => {
    const cases: [string, string, unknown, string][] = [
      ["PUT", "/14155550101", { email: "nope" }, "email"],
      ["PUT", "/14155550101", { name: "x", colour: "red" }, ""],
      ["PUT", "/14155550101", { tags: "vip" }, "tags"],
      ["PUT", "/12345", { name: "x" }, "number"],
      ["GET", "?count=0", undefined, "count"],
      ["POST", "/import", { csv: "" }, "csv"],
      ["POST", "/import", { csv: "phone,name\n+14155550101,Jane" }, "csv"],
      ["POST", "/import", { csv: 'name,phone,email,tags\n"open quote,+14155550101,,' }, "csv"],
      ["POST", "/import", { file: "x" }, ""],
    ];
    for (const [method, path, body, field] of cases) {
      const { status, json } = await request(method, `${base()}${path}`, agentCookie, body);
      expect(status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(json).toMatchObject({ status: "InvalidRequest", statusCode: 400 });
      if (field) expect(json.data.field).toBe(field);
    }
    const notJson = await fetch(`${base()}/import`, {
      method: "POST",
      headers: { cookie: agentCookie, "content-type": "text/csv" },
      body: "name,phone,email,tags\n",
    });
    expect(notJson.status).toBe(415);
    expect((await storedContacts()).find((c) => c.number === "14155550101")?.email).toBe("jane@example.com");
  });
});
