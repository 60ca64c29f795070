import type { Browser, BrowserContextOptions, Page } from "@playwright/test";
import { expect as baseExpect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";

// The inbox as a newcomer and a keyboard user meet it: shortcuts, the unread count in the tab's title, times in the
// account's zone everywhere, failed replies in plain words with Retry, the opt-out hint an agent can act on, the
// sender's name on the message page, no console error on load, a favicon, and the phone-sized layout.

let server: RunningServer;
let demo: DemoCredentials;
let cookie: string;
const agent = { email: "agent.keys@example.com", password: "agent-keys-password-1", name: "Kim Keys" };
// A second agent who opens nothing before the title test, so all four conversations are unread for them.
const watcher = { email: "agent.title@example.com", password: "agent-title-password-1", name: "Tia Title" };
const FIRST = "+14155550111";
const SECOND = "+14155550122";
const FAILS = "+14155550001"; // the simulator fails every message to a number ending in 0001
const LONG = "+14155550133";
const ids: Record<string, string> = {};

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

function inbound(from: string, body: string) {
  return parley(
    ["inbound", "--from", from, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", body],
    server.database.url,
  );
}

async function adminApi<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { cookie, origin: server.baseUrl, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

let sent = 0;
const reply = (id: string, body: string) =>
  adminApi<{ message: { messageId: string } }>(`/conversations/${id}/messages`, {
    body,
    media: [],
    clientId: `keys${Date.now()}n${sent++}`,
  });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "200" } });
  demo = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
  await createUser(server.database.url, { accountId: demo.accountId, ...watcher, role: "agent" });
  cookie = await portalCookie(server, demo.email, demo.password);
  await inbound(LONG, "A long conversation starts");
  await inbound(FAILS, "Hi from a phone that cannot receive");
  await inbound(SECOND, "please stop texting me");
  await inbound(FIRST, "Hello, first one");
  const list = await adminApi<{ conversations: { id: string; remoteNumber: string }[] }>("/conversations");
  for (const c of list.conversations) ids["+" + c.remoteNumber.replace(/^\+/, "")] = c.id;
  for (let i = 1; i <= 24; i++) await reply(ids[LONG]!, `Line ${i} of a long thread`);
});

test.afterAll(async () => {
  await server?.stop();
});

async function signedIn(
  browser: Browser,
  who: { email: string; password: string },
  options: BrowserContextOptions = {},
) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await signIn(page, who.email, who.password);
  return page;
}
const admin = {
  get email() {
    return demo.email;
  },
  get password() {
    return demo.password;
  },
};

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: false });

test("the conversations page loads without a console error, in a browser far from the account's zone", async ({
  browser,
}) => {
  // A browser in Tokyo, an account in New York: a time rendered differently on the server and in the browser
  // would break hydration (React's error #418).
  const page = await signedIn(browser, admin, { timezoneId: "Asia/Tokyo" });
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  for (let load = 0; load < 6; load++) {
    await page.goto(server.baseUrl + "/conversations");
    await expect(page.getByRole("link", { name: /\+14155550111/ })).toBeVisible();
    await page.waitForLoadState("networkidle");
  }
  await page.goto(server.baseUrl + `/conversations/${ids[FIRST]}`);
  await expect(page.getByRole("log", { name: "Messages" }).getByText("Hello, first one")).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(errors).toEqual([]);

  // The tab's icon: linked from the page, and /favicon.ico answers for the tools that ask for it directly.
  const icon = await page.locator("link[rel=icon]").first().getAttribute("href");
  expect(icon).toBeTruthy();
  const iconAnswer = await fetch(new URL(icon!, server.baseUrl));
  expect(iconAnswer.status).toBe(200);
  const favicon = await fetch(server.baseUrl + "/favicon.ico");
  expect(favicon.status).toBe(200);
  expect(favicon.headers.get("content-type")).toMatch(/icon/);
  await page.context().close();
});

test("a message shows the same time, the account's, in the thread and on the message page, with the sender's name", async ({
  browser,
}) => {
  const page = await signedIn(browser, admin, { timezoneId: "Asia/Tokyo" });
  await page.goto(server.baseUrl + `/conversations/${ids[LONG]}`);
  const bubble = page.locator("li[data-message-id]").filter({ hasText: "Line 24 of a long thread" });
  await expect(bubble).toContainText("Demo admin");
  const inThread = (await bubble.locator("time").textContent())!.trim();
  const messageId = await bubble.getAttribute("data-message-id");
  await page.goto(server.baseUrl + `/messages/${messageId}`);
  const created = page.locator("dt", { hasText: "Created" }).locator("xpath=following-sibling::dd[1]");
  await expect(created).toContainText("America/New_York");
  expect((await created.textContent())!.startsWith(inThread), `${inThread} vs ${await created.textContent()}`).toBe(
    true,
  );
  // Sent from the portal by a staff member: their name, not their user id.
  const user = page.locator("dt", { hasText: "User" }).locator("xpath=following-sibling::dd[1]");
  await expect(user).toContainText("Demo admin");
  await expect(user).not.toContainText(/[0-9a-f]{8}-[0-9a-f]{4}/);
  await page.context().close();
});

test("a failed reply says why in plain words, and Retry sends it again", async ({ browser }) => {
  test.setTimeout(90_000);
  const page = await signedIn(browser, admin);
  await page.goto(server.baseUrl + `/conversations/${ids[FAILS]}`);
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("Can you read this?");
  await page.getByRole("button", { name: "Send" }).click();
  const bubbles = page.locator("li[data-message-id]").filter({ hasText: "Can you read this?" });
  // It leaves from the number the long thread's 24 replies were sent from, one a second: on a fast machine they
  // may still be in the queue ahead of it.
  await expect(bubbles.locator("[data-state=failed], [data-state=undelivered]")).toBeVisible({ timeout: 40_000 });
  await expect(bubbles).toContainText("The carrier could not deliver the message to the phone.");
  await expect(bubbles).not.toContainText("stat:");
  await expect(bubbles).not.toContainText("id:sim-");
  await shot(page, "conversation-failed-reply");
  await bubbles.getByRole("button", { name: "Retry" }).click();
  // The same text again, as a new reply (it fails again here: the simulator never reaches this number).
  await expect(bubbles).toHaveCount(2);
  await expect(bubbles.nth(1).locator("[data-state]")).toBeVisible({ timeout: 10_000 });
  await page.context().close();
});

test("the possible opt-out hint sends an admin to Opt-outs and tells an agent what they can do", async ({
  browser,
}) => {
  const adminPage = await signedIn(browser, admin);
  await adminPage.goto(server.baseUrl + `/conversations/${ids[SECOND]}`);
  const hint = adminPage.getByText(/Possible opt-out:/).locator("..");
  await expect(hint.getByRole("link", { name: "Opt-outs" })).toHaveAttribute("href", "/opt-outs");
  await adminPage.context().close();

  const agentPage = await signedIn(browser, agent);
  await agentPage.goto(server.baseUrl + `/conversations/${ids[SECOND]}`);
  const agentHint = agentPage.getByText(/Possible opt-out:/).locator("..");
  await expect(agentHint).toContainText("ask an admin of the account to opt the number out");
  await expect(agentHint.getByRole("link")).toHaveCount(0);
  await agentPage.context().close();
});

test("keyboard: j/k move through conversations, r replies, / searches, ? lists the keys, typing is text", async ({
  browser,
}) => {
  const page = await signedIn(browser, agent);
  await page.goto(server.baseUrl + "/conversations");
  const rows = page.locator("a[data-row]");
  await expect(rows).toHaveCount(4);
  // The keys work once the page is hydrated: before, a key press is lost.
  await page.waitForLoadState("networkidle");
  await page.keyboard.press("j");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("j");
  await expect(rows.nth(2)).toBeFocused();
  await page.keyboard.press("k");
  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/conversations\/[0-9a-f-]+$/);
  const opened = page.url();

  // In a thread, j opens the next conversation of the list and k the one before.
  await page.keyboard.press("j");
  await expect(page).not.toHaveURL(opened);
  await expect(page).toHaveURL(/\/conversations\/[0-9a-f-]+$/);
  await page.keyboard.press("k");
  await expect(page).toHaveURL(opened);

  // r puts the cursor in the message box; letters typed there are text, not shortcuts.
  await page.keyboard.press("r");
  const box = page.getByRole("textbox", { name: "Message" });
  await expect(box).toBeFocused();
  await page.keyboard.type("jk/?");
  await expect(box).toHaveValue("jk/?");
  await expect(page).toHaveURL(opened);
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await box.fill("");
  await box.blur();

  // e resolves the open conversation; a assigns it to the viewer (through the thread's Resolve and Assign buttons).
  await page.keyboard.press("e");
  await expect(page.getByRole("button", { name: "Reopen" })).toBeVisible();
  // (Open again: the other tests count open conversations.)
  await page.getByRole("button", { name: "Reopen" }).click();
  await expect(page.getByRole("button", { name: "Resolve" })).toBeVisible();
  await page.keyboard.press("a");
  await expect(page.getByText(/^Assigned to /)).toBeVisible();

  // ? lists the shortcuts; Escape closes the list.
  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(dialog).toBeVisible();
  for (const does of ["Next conversation", "Previous conversation", "Resolve the open conversation", "Search"])
    await expect(dialog).toContainText(does);
  await shot(page, "conversations-shortcuts");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  // / goes to the list's search box, from a thread too: the list is beside the thread on a wide screen, and the
  // thread stays open.
  const threadUrl = page.url();
  await page.keyboard.press("/");
  await expect(page).toHaveURL(threadUrl);
  const search = page.locator("input[type=search]");
  await expect(search).toBeFocused();
  await page.keyboard.type("first");
  await expect(search).toHaveValue("first");
  await page.context().close();
});

test("the tab's title counts the unread conversations, live", async ({ browser }) => {
  const page = await signedIn(browser, watcher);
  await page.goto(server.baseUrl + "/conversations");
  // This agent has read none of the four.
  await expect(page).toHaveTitle("(4) Conversations · Parley");
  await page.getByRole("link", { name: /\+14155550111/ }).click();
  await expect(page.getByRole("log", { name: "Messages" }).getByText("Hello, first one")).toBeVisible();
  await expect(page).toHaveTitle("(3) Conversation · Parley");
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Conversations" }).click();
  await expect(page).toHaveTitle("(3) Conversations · Parley");
  // A new message in the conversation the agent read makes it unread again, without a reload.
  await inbound(FIRST, "One more thing");
  await expect(page).toHaveTitle("(4) Conversations · Parley", { timeout: 5_000 });
  await page.context().close();
});

test("at 390 px the list and the thread are separate screens, and Send is in view when a thread opens", async ({
  browser,
}) => {
  const page = await signedIn(browser, admin, {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  await page.goto(server.baseUrl + "/conversations");
  await page.getByRole("link", { name: /\+14155550133/ }).click();
  await expect(page.getByRole("log", { name: "Messages" }).getByText("Line 24 of a long thread")).toBeVisible();
  // The thread alone: no list beside it; the way back is a link.
  await expect(page.getByRole("list", { name: "Conversations" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Send" })).toBeInViewport();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeInViewport();
  await expect(page.getByRole("log", { name: "Messages" }).getByText("Line 24 of a long thread")).toBeInViewport();
  expect(await page.evaluate(() => window.scrollY)).toBeLessThan(5);
  await shot(page, "conversation-thread-390");
  await page.getByRole("link", { name: "← Conversations" }).click();
  await expect(page.getByRole("list", { name: "Conversations" })).toBeVisible();
  await page.context().close();
});
