import type { Browser, Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";

// Two staff members chat with a phone. The phone side is the CLI's `inbound` command: a separate process writing
// to the database, so everything seen live here also crossed processes.
let server: RunningServer;
let demo: DemoCredentials;
const agent = { email: "agent.two@example.com", password: "agent-two-password-1", name: "Agent Two" };
const PHONE = "+14155550142";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "1000" } });
  demo = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
});

test.afterAll(async () => {
  await server?.stop();
});

async function signIn(browser: Browser, email: string, password: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return page;
}

function inbound(body: string, from = PHONE) {
  return parley(
    ["inbound", "--from", from, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", body],
    server.database.url,
  );
}

test("two staff members chat with a phone, live both ways", async ({ browser }) => {
  await inbound("Hello, is anyone there?");
  const admin = await signIn(browser, demo.email, demo.password);
  const second = await signIn(browser, agent.email, agent.password);

  // The list: one row, one unread for each of them.
  for (const page of [admin, second]) {
    await page.goto(server.baseUrl + "/conversations");
    await expect(page.getByRole("link", { name: /\+14155550142/ })).toContainText("Hello, is anyone there?");
    await expect(page.getByLabel("1 unread")).toBeVisible();
  }
  await admin.screenshot({ path: "test-results/screens/conversations-list.png", fullPage: true });

  // A new inbound message moves the unread count without a reload.
  await inbound("Second question");
  await expect(second.getByLabel("2 unread")).toBeVisible({ timeout: 3_000 });

  // Keyboard: ↓ then Enter opens the conversation.
  await admin.getByRole("link", { name: /\+14155550142/ }).focus();
  await admin.keyboard.press("Enter");
  await expect(admin).toHaveURL(/\/conversations\/[0-9a-f-]+$/);
  const threadUrl = admin.url();
  await expect(admin.getByRole("log", { name: "Messages" }).getByText("Second question")).toBeVisible();
  // Opening it marked it read for the admin only.
  await expect(second.getByLabel("2 unread")).toBeVisible();

  // An inbound message appears in the open thread within a second.
  // (Timed from the moment the CLI process has committed it and exited.)
  await inbound("Are you open on Sunday?");
  const committedAt = Date.now();
  await expect(admin.getByRole("log", { name: "Messages" }).getByText("Are you open on Sunday?")).toBeVisible({
    timeout: 1_000,
  });
  console.log(`inbound committed → shown in the open thread: ≤ ${Date.now() - committedAt} ms`);

  // The second agent opens the thread too.
  await second.goto(threadUrl);
  await expect(second.getByRole("log", { name: "Messages" }).getByText("Are you open on Sunday?")).toBeVisible();

  // The admin replies: the bubble appears at once and the ticks move queued → sent → delivered.
  const box = admin.getByRole("textbox", { name: "Message" });
  await box.fill("Yes, from 10 to 4.");
  await box.press("Shift+Enter");
  await box.pressSequentially("See you!");
  await expect(box).toHaveValue("Yes, from 10 to 4.\nSee you!");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const bubble = admin.locator("li[data-message-id]").filter({ hasText: "See you!" });
  await expect(bubble).toHaveCount(1);
  await expect(bubble.locator("[data-state=delivered]")).toBeVisible({ timeout: 10_000 });
  await expect(bubble).toContainText("Demo admin");
  // The other staff member saw it live, with who sent it, exactly once.
  const seen = second.locator("li[data-message-id]").filter({ hasText: "See you!" });
  await expect(seen).toHaveCount(1);
  await expect(seen.locator("[data-state=delivered]")).toBeVisible({ timeout: 10_000 });
  await admin.screenshot({ path: "test-results/screens/conversation-thread.png", fullPage: true });

  // The second agent replies while the admin types: the admin sees it before sending.
  await box.fill("Typing something…");
  const other = second.getByRole("textbox", { name: "Message" });
  await other.fill("I can help too.");
  await second.getByRole("button", { name: "Send" }).click();
  await expect(admin.locator("li[data-message-id]").filter({ hasText: "I can help too." })).toContainText(agent.name);
  await expect(box).toHaveValue("Typing something…");
  await box.fill("");

  // A sentence that looks like an opt-out is flagged; STOP opts out and disables the composer for both.
  await inbound("please stop texting me");
  await expect(admin.getByText("Possible opt-out:")).toBeVisible({ timeout: 3_000 });
  await inbound("STOP");
  for (const page of [admin, second]) {
    await expect(page.getByText("This phone opted out.")).toBeVisible({ timeout: 3_000 });
    await expect(page.getByRole("textbox", { name: "Message" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Send" })).toBeDisabled();
  }
  await expect(admin.getByText(/It texted STOP/)).toBeVisible();
  await admin.screenshot({ path: "test-results/screens/conversation-opted-out.png", fullPage: true });

  // Mark unread: back in the list with an unread count again.
  await admin.getByRole("button", { name: "Mark unread" }).click();
  await expect(admin).toHaveURL(/\/conversations$/);
  await expect(admin.getByLabel(/\d+ unread/)).toBeVisible();
  await admin.context().close();
  await second.context().close();
});

test("a reply refused because the phone opted out meanwhile stays, marked failed, with the reason", async ({
  browser,
}) => {
  const phone = "+14155550177";
  await inbound("Hi there", phone);
  const page = await signIn(browser, demo.email, demo.password);
  await page.goto(server.baseUrl + "/conversations");
  await page.getByRole("link", { name: /\+14155550177/ }).click();
  await expect(page.getByRole("log", { name: "Messages" }).getByText("Hi there")).toBeVisible();
  // The phone opts out by an admin elsewhere (the CLI) while the page still shows the composer.
  await parley(
    ["opt", "out", "--account", demo.accountId, "--number", phone, "--note", "asked by phone"],
    server.database.url,
  );
  // The opt-out alone does not change a message, so the page has not heard of it yet.
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("Thanks for writing!");
  await page.getByRole("button", { name: "Send" }).click();
  const bubble = page.locator("li[data-message-id]").filter({ hasText: "Thanks for writing!" });
  await expect(bubble).toHaveCount(1);
  await expect(bubble).toContainText("this phone opted out");
  await expect(bubble.locator("[data-state=rejected]")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/conversation-reply-refused.png", fullPage: true });
  await page.context().close();
});

test("the composer counts segments exactly as the API does", async ({ browser }) => {
  const page = await signIn(browser, demo.email, demo.password);
  const phone = "+14155550188";
  await inbound("Counting", phone);
  await page.goto(server.baseUrl + "/conversations");
  await page.getByRole("link", { name: /\+14155550188/ }).click();
  const box = page.getByRole("textbox", { name: "Message" });
  const cases = [
    { text: "a".repeat(160), alphabet: "GSM-7" },
    { text: "a".repeat(161), alphabet: "GSM-7" },
    { text: "€[]".repeat(40) + "x".repeat(40), alphabet: "GSM-7" },
    { text: "Café à la carte ¿sí? ".repeat(8), alphabet: "Latin-1", culprit: "í" },
    { text: "Hello 👋 " + "b".repeat(70), alphabet: "UCS-2", culprit: "👋" },
  ];
  for (const c of cases) {
    await box.fill(c.text);
    const counter = page.getByTestId("segment-counter");
    await expect(counter).toContainText(c.alphabet);
    if (c.culprit) await expect(counter).toContainText(`“${c.culprit}”`);
    const shown = Number(await counter.locator("[data-segments]").getAttribute("data-segments"));
    const answer = await fetch(`${server.baseUrl}/v3/messages`, {
      method: "POST",
      headers: { apikey: demo.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ accountId: demo.accountId, from: demo.numbers[0], to: "14155550199", body: c.text }),
    });
    const data = (await answer.json()) as { data: { messageInfo: { numSegments: number }[] } };
    expect(shown, c.text).toBe(data.data.messageInfo[0]!.numSegments);
  }
  await page.screenshot({ path: "test-results/screens/conversation-composer-counter.png", fullPage: true });

  // A curly quote pasted from a word processor makes the text UCS-2: the composer names it and fixes it in a click.
  await box.fill("Don\u2019t forget your table at 8\u00a0pm \u2014 " + "c".repeat(60));
  const fix = page.getByTestId("look-alike-fix");
  await expect(fix).toContainText("\u2019, no-break space, \u2014 cost 2 segments instead of 1");
  await fix.getByRole("button", { name: "Fix", exact: true }).click();
  await expect(box).toHaveValue("Don't forget your table at 8 pm - " + "c".repeat(60));
  await expect(page.getByTestId("segment-counter")).toContainText("1 segment · GSM-7");
  await expect(fix).toHaveCount(0);
  await page.context().close();
});
