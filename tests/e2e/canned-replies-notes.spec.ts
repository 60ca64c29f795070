import type { Browser, Page } from "@playwright/test";
import { expect as baseExpect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";

// An admin saves a canned reply and sends it from a thread with the variables filled in; then writes an internal
// note mentioning an agent, who sees the note live and a badge on Conversations.
// Every wait is generous: the machine the suite runs on may be busy.
const expect = baseExpect.configure({ timeout: 20_000 });
let server: RunningServer;
let demo: DemoCredentials;
const agent = { email: "ana.lima@example.com", password: "agent-ana-password-1", name: "Ana Lima" };
const PHONE = "+14155550163";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // The server and each CLI call start a process of their own: generous on a busy machine.
  test.setTimeout(240_000);
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "500" } });
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

test("a canned reply goes out with its variables filled in; a note with a mention reaches the agent", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  await parley(
    ["inbound", "--from", PHONE, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", "When are you open?"],
    server.database.url,
  );
  const admin = await signIn(browser, demo.email, demo.password);
  const ana = await signIn(browser, agent.email, agent.password);

  // The admin saves a canned reply on its page.
  await admin.getByRole("link", { name: "Canned replies" }).click();
  await expect(admin).toHaveURL(/\/canned-replies$/);
  await admin.getByRole("button", { name: "New canned reply" }).click();
  await admin.getByRole("textbox", { name: "Shortcut" }).fill("hours");
  await admin
    .getByRole("textbox", { name: "Text" })
    .fill("Hi, this is {{agent.name}}: we are open 9 to 5 on weekdays. {{unknown.thing}} stays visible.");
  await admin.getByRole("button", { name: "Save canned reply" }).click();
  const saved = admin.locator("[data-canned-reply=hours]");
  await expect(saved).toContainText("/hours");
  await expect(saved).toContainText("Everyone");
  await admin.screenshot({ path: "test-results/screens/canned-replies-page.png", fullPage: true });

  // The agent sees it too (account-wide), without Edit.
  await ana.goto(server.baseUrl + "/canned-replies");
  await expect(ana.locator("[data-canned-reply=hours]")).toBeVisible();
  await expect(ana.getByRole("button", { name: "Edit /hours" })).toHaveCount(0);

  // In the thread, "/" opens the picker; Escape closes it; typing filters; Enter inserts the filled-in text.
  await admin.goto(server.baseUrl + "/conversations");
  await admin.getByRole("link", { name: /\+14155550163/ }).click();
  const box = admin.getByRole("textbox", { name: "Message" });
  await box.pressSequentially("/");
  const picker = admin.getByRole("listbox", { name: "Canned replies" });
  await expect(picker).toBeVisible();
  await expect(picker.getByRole("option", { name: /\/hours/ })).toBeVisible();
  await box.press("Escape");
  await expect(picker).toHaveCount(0);
  await box.fill("");
  await box.pressSequentially("/weekd");
  await expect(picker.getByRole("option")).toHaveCount(1);
  await expect(box).toHaveAttribute("aria-activedescendant", /.+/);
  await admin.screenshot({ path: "test-results/screens/canned-reply-picker.png", fullPage: true });
  await box.press("Enter");
  await expect(picker).toHaveCount(0);
  const text = "Hi, this is Demo admin: we are open 9 to 5 on weekdays. {{unknown.thing}} stays visible.";
  await expect(box).toHaveValue(text);
  const counter = admin.getByTestId("segment-counter");
  await expect(counter).toContainText(`${text.length} characters`);
  await expect(counter.locator("[data-segments]")).toHaveAttribute("data-segments", "1");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const bubble = admin.locator("li[data-message-id]").filter({ hasText: "Hi, this is Demo admin" });
  await expect(bubble).toHaveCount(1);
  await expect(bubble.locator("[data-state=delivered]")).toBeVisible({ timeout: 15_000 });

  // Note mode: an internal note mentioning Ana, never sent.
  await ana.goto(server.baseUrl + "/conversations");
  await admin.getByRole("button", { name: "Note", exact: true }).click();
  const note = admin.getByRole("textbox", { name: "Internal note" });
  await expect(note).toHaveAttribute("placeholder", "Internal note — only staff see it");
  await note.fill("@Ana can you confirm the Saturday hours?");
  await admin.getByRole("button", { name: "Add note" }).click();
  const shown = admin.getByRole("note", { name: "Note by Demo admin" });
  await expect(shown).toContainText("@Ana can you confirm the Saturday hours?");
  await expect(shown.locator("[data-state]")).toHaveCount(0);
  await expect(admin.locator("li[data-message-id]").filter({ hasText: "Saturday hours" })).toHaveCount(0);
  await admin.screenshot({ path: "test-results/screens/conversation-note.png", fullPage: true });
  // "Reply" switches back to the message box.
  await admin.getByRole("button", { name: "Reply" }).click();
  await expect(admin.getByRole("textbox", { name: "Message" })).toBeVisible();

  // Ana, on the list, gets a badge on Conversations live; opening the thread shows the note and reads the mention.
  const badge = ana.getByTestId("mention-badge");
  // Live through the socket; the badge also reads the count again every minute.
  await expect(badge).toContainText("@1", { timeout: 70_000 });
  await expect(ana.getByRole("button", { name: "Enable notifications" })).toBeVisible();
  await ana.getByRole("link", { name: /\+14155550163/ }).click();
  await expect(ana.getByRole("note", { name: "Note by Demo admin" })).toContainText("Saturday hours");
  await expect(badge).toHaveCount(0);

  // A second note reaches her open thread live.
  await admin.getByRole("button", { name: "Note", exact: true }).click();
  await admin.getByRole("textbox", { name: "Internal note" }).fill("Thanks @ana lima!");
  await admin.getByRole("button", { name: "Add note" }).click();
  await expect(ana.getByRole("note").filter({ hasText: "Thanks @ana lima!" })).toBeVisible({ timeout: 5_000 });
  await ana.screenshot({ path: "test-results/screens/conversation-note-agent.png", fullPage: true });
  await admin.context().close();
  await ana.context().close();
});
