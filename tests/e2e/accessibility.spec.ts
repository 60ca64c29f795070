import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "@playwright/test";
import { expect as baseExpect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";

// Every page of the portal, checked by axe-core as an admin and as an agent (where the pages differ), on a wide
// screen and on a phone-sized one, in the light and the dark colour scheme: no serious or critical violation.
// A failure prints each violation's rule, impact and the elements it found, so it can be fixed from the log.

let server: RunningServer;
let demo: DemoCredentials;
const agent = { email: "agent.axe@example.com", password: "agent-axe-password-1", name: "Alex Agent" };
const PHONE = "+14155550142";
const FAILS = "+14155550001"; // the simulator fails every message to a number ending in 0001
let threadPath = "";
let failedThreadPath = "";
let messagePath = "";

test.describe.configure({ mode: "serial" });
// A machine shared by several builds answers slowly at times: wait longer than the default 5 s for what a user sees.
const expect = baseExpect.configure({ timeout: 20_000 });

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

function inbound(body: string, from = PHONE) {
  return parley(
    ["inbound", "--from", from, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", body],
    server.database.url,
  );
}

/** The portal's own API, as the signed-in admin's browser calls it. */
async function adminApi<T>(cookie: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { cookie, origin: server.baseUrl, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "200" } });
  demo = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
  await inbound("Hello, is anyone there?");
  await inbound("Hi, this number fails", FAILS);
  const cookie = await portalCookie(server, demo.email, demo.password);
  const list = await adminApi<{ conversations: { id: string; remoteNumber: string }[] }>(cookie, "/conversations");
  const byNumber = (n: string) => list.conversations.find((c) => n.endsWith(c.remoteNumber.replace(/^\+/, "")))!.id;
  threadPath = `/conversations/${byNumber(PHONE)}`;
  failedThreadPath = `/conversations/${byNumber(FAILS)}`;
  const reply = (id: string, body: string) =>
    adminApi<{ message: { messageId: string } }>(cookie, `/conversations/${id}/messages`, {
      body,
      media: [],
      clientId: `axe${Date.now()}${body.length}`,
    });
  await reply(byNumber(PHONE), "Yes, we are open.");
  const failed = await reply(byNumber(FAILS), "This one fails");
  messagePath = `/messages/${failed.message.messageId}`;
});

test.afterAll(async () => {
  await server?.stop();
});

interface Violation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Runs axe on the page as it is now and returns the serious and critical violations, described one a line. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return (results.violations as Violation[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => JSON.stringify(n.target)).join("\n    ")}`);
}

async function signedIn(browser: Browser, email: string, password: string, width: number, dark: boolean) {
  const context = await browser.newContext({
    viewport: { width, height: width > 800 ? 900 : 844 },
    colorScheme: dark ? "dark" : "light",
  });
  const page = await context.newPage();
  await signIn(page, email, password);
  return page;
}

const ADMIN_PAGES = [
  "/",
  "/conversations",
  "THREAD",
  "FAILED_THREAD",
  "/messages",
  "MESSAGE",
  "/contacts",
  "/canned-replies",
  "/campaigns/new",
  "/numbers",
  "/carriers",
  "/keys",
  "/webhook",
  "/opt-outs",
  "/users",
  "/settings",
  "/simulator",
  "/profile",
  "/docs",
  "/no-such-page",
  "/messages/00000000-0000-0000-0000-000000000000",
];
// Where an agent's pages differ: the shell without admin pages, and the 403 page for an admin one.
const AGENT_PAGES = [
  "/conversations",
  "THREAD",
  "/messages",
  "MESSAGE",
  "/contacts",
  "/canned-replies",
  "/profile",
  "/numbers",
  "/settings",
];

function resolve(path: string): string {
  if (path === "THREAD") return threadPath;
  if (path === "FAILED_THREAD") return failedThreadPath;
  if (path === "MESSAGE") return messagePath;
  return path;
}

async function check(page: Page, paths: string[], label: string): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const url = resolve(path);
    const began = Date.now();
    await page.goto(server.baseUrl + url);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    // The thread's bubbles are the page's subject: wait for them before judging it.
    if (path === "THREAD")
      await expect(page.getByRole("log", { name: "Messages" }).getByText("Yes, we are open.")).toBeVisible();
    const lines = await seriousViolations(page);
    for (const line of lines) found.push(`${label} ${url}: ${line}`);
    console.log(`${label} ${url}: ${lines.length} serious or critical, ${Date.now() - began} ms`);
    for (const line of lines) console.log(`  ${line}`);
  }
  return found;
}

// Contrast depends on the colours, not the width: the dark scheme is checked on the wide screen; the phone-sized
// screen checks the layout's own rules (landmarks, scroll regions, names) in the light one. The agent's pages are
// the admin's with less on them: they are checked once, wide and light (the colours and layouts are the admin's).
const RUNS = [
  { width: 1440, scheme: "light" },
  { width: 1440, scheme: "dark" },
  { width: 390, scheme: "light" },
] as const;

for (const { width, scheme } of RUNS) {
  test(`no serious or critical axe violation on the admin's pages at ${width} px, ${scheme}`, async ({ browser }) => {
    test.setTimeout(600_000);
    const found: string[] = [];
    const anonymous = await (
      await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme })
    ).newPage();
    await anonymous.goto(server.baseUrl + "/login");
    for (const line of await seriousViolations(anonymous)) found.push(`signed out /login: ${line}`);
    await anonymous.context().close();

    const admin = await signedIn(browser, demo.email, demo.password, width, scheme === "dark");
    if (scheme === "dark") {
      // The system's dark setting is followed: the page itself is dark.
      const background = await admin.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).not.toMatch(/rgb\(2[0-9]{2}, 2[0-9]{2}, 2[0-9]{2}\)|oklch\(0\.9/);
    }
    found.push(...(await check(admin, ADMIN_PAGES, "admin")));
    await admin.context().close();
    expect(found, found.join("\n")).toEqual([]);
  });

  if (width !== 1440 || scheme !== "light") continue;
  test(`no serious or critical axe violation on the agent's pages at ${width} px, ${scheme}`, async ({ browser }) => {
    test.setTimeout(600_000);
    const agentPage = await signedIn(browser, agent.email, agent.password, width, false);
    const found = await check(agentPage, AGENT_PAGES, "agent");
    await agentPage.context().close();
    expect(found, found.join("\n")).toEqual([]);
  });
}
