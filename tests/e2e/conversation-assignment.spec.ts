import type { Browser, Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";

// An admin and an agent share the inbox in two browsers. The phone is the CLI's `inbound` command (another
// process), so what the browsers learn of its messages crossed processes too.
let server: RunningServer;
let demo: DemoCredentials;
const agent = { email: "ben@assign.example", password: "ben-agent-password-1", name: "Ben" };
const PHONE = "+14155550177";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // A server and two CLI processes: slow on a busy machine.
  test.setTimeout(180_000);
  server = await startServer();
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
  // Signing in hashes the password: slow on a busy machine.
  await expect(page).not.toHaveURL(/\/login/, { timeout: 20_000 });
  return page;
}

function inbound(body: string) {
  return parley(
    ["inbound", "--from", PHONE, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", body],
    server.database.url,
  );
}

test("an agent takes a conversation, resolves it, and a new message reopens it, live for the admin", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  await inbound("Where is my parcel?");
  const admin = await signIn(browser, demo.email, demo.password);
  const ben = await signIn(browser, agent.email, agent.password);

  // The admin watches the list; the conversation is unassigned.
  await admin.goto(server.baseUrl + "/conversations");
  const adminRow = admin.getByRole("link", { name: /\+14155550177/ });
  await expect(adminRow).toContainText("Unassigned");
  await expect(admin.getByRole("tab", { name: "Unassigned" })).toContainText("1");
  await expect(admin.getByRole("tab", { name: "Mine" })).toContainText("0");

  // Ben finds it under Unassigned and takes it with "Assign".
  await ben.goto(server.baseUrl + "/conversations");
  await ben.getByRole("tab", { name: "Unassigned" }).click();
  await ben.getByRole("link", { name: /\+14155550177/ }).click();
  await expect(ben).toHaveURL(/\/conversations\/[0-9a-f-]+$/);
  const threadUrl = ben.url();
  await ben.getByRole("button", { name: "Assign" }).click();
  const options = ben.getByRole("listbox");
  await expect(options.getByRole("option", { name: "Unassigned" })).toBeVisible();
  await expect(options.getByRole("option", { name: "Demo admin" })).toHaveAttribute("aria-disabled", "true");
  await options.getByRole("option", { name: /Ben/ }).click();
  await expect(ben.getByTestId("assignee")).toHaveText("Assigned to Ben");
  await expect(ben.getByText("Ben took this")).toBeVisible();

  // The admin's list shows the assignee without a reload; the views' counts moved.
  await expect(adminRow).toContainText("Ben", { timeout: 5_000 });
  await expect(admin.getByRole("tab", { name: "Unassigned" })).toContainText("0");

  // The admin opens the thread; Ben resolves it: the admin sees "Reopen" live.
  await admin.goto(threadUrl);
  await expect(admin.getByTestId("assignee")).toHaveText("Assigned to Ben");
  await ben.getByRole("button", { name: "Resolve" }).click();
  await expect(ben.getByRole("button", { name: "Reopen" })).toBeVisible();
  await expect(admin.getByRole("button", { name: "Reopen" })).toBeVisible({ timeout: 10_000 });
  await expect(admin.getByText("Ben resolved this")).toBeVisible();
  await admin.screenshot({ path: "test-results/screens/conversation-assignment-resolved.png", fullPage: true });

  // In Ben's list it is under Resolved, not under Mine.
  await ben.goto(server.baseUrl + "/conversations");
  await ben.getByRole("tab", { name: "Resolved" }).click();
  await expect(ben.getByRole("link", { name: /\+14155550177/ })).toBeVisible();
  await ben.getByRole("tab", { name: "Mine" }).click();
  await expect(ben.getByRole("link", { name: /\+14155550177/ })).toHaveCount(0);

  // The phone writes again: the conversation is open again, in the admin's thread and in Ben's Mine.
  await inbound("Still nothing here");
  await expect(admin.getByRole("log", { name: "Messages" }).getByText("Still nothing here")).toBeVisible({
    timeout: 5_000,
  });
  await expect(admin.getByRole("button", { name: "Resolve" })).toBeVisible({ timeout: 5_000 });
  await expect(admin.getByText("Reopened by a new message")).toBeVisible();
  await expect(ben.getByRole("link", { name: /\+14155550177/ })).toBeVisible({ timeout: 5_000 });
  await ben.getByRole("tab", { name: "Resolved" }).click();
  await expect(ben.getByRole("link", { name: /\+14155550177/ })).toHaveCount(0);
  await ben.screenshot({ path: "test-results/screens/conversation-assignment-list.png", fullPage: true });
});

test("staff start a conversation from a number they pick, snooze it, and find it by its contact's tag, the list beside the thread", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const ben = await signIn(browser, agent.email, agent.password);
  await ben.setViewportSize({ width: 1440, height: 900 });
  await ben.goto(server.baseUrl + "/conversations");
  const list = ben.getByRole("list", { name: "Conversations" });

  await ben.getByRole("button", { name: "New conversation" }).click();
  const dialog = ben.getByRole("dialog", { name: "New conversation" });
  await dialog.getByLabel("To", { exact: true }).fill("4155550188");
  await dialog.getByLabel("Message").fill("Hello from the shop, your order is ready.");
  await expect(dialog.getByText("41 characters · 1 segment")).toBeVisible();
  await dialog.getByRole("button", { name: "Send" }).click();
  // Without a country code the number is refused beside its box.
  await expect(dialog.getByText(/country code, such as \+14155550123/)).toBeVisible();
  await dialog.getByLabel("To", { exact: true }).fill("+1 (415) 555-0188");
  await expect(dialog.getByLabel("From")).toHaveValue(`+${demo.numbers[0]!.replace(/^\+/, "")}`);
  await dialog.getByRole("button", { name: "Send" }).click();

  // The thread opens beside the list, Ben's (he wrote first), with his message.
  await expect(ben).toHaveURL(/\/conversations\/[0-9a-f-]+$/);
  const log = ben.getByRole("log", { name: "Messages" });
  await expect(log.getByText("Hello from the shop, your order is ready.")).toBeVisible();
  await expect(ben.getByTestId("assignee")).toHaveText("Assigned to Ben");
  await expect(list).toBeVisible();
  const row = list.getByRole("link", { name: /\+14155550188/ });
  await expect(row).toHaveAttribute("data-open", "");

  // The contact gets a tag in the panel beside the thread; the list's Tag filter keeps only that conversation.
  const contact = ben.getByRole("region", { name: "Contact" });
  await contact.getByRole("textbox", { name: "Tags" }).fill("vip");
  await contact.getByRole("button", { name: "Save contact" }).click();
  await expect(contact.getByText("Saved")).toBeVisible();
  await ben.getByLabel("Tag", { exact: true }).fill("VIP");
  await expect(list.getByRole("link")).toHaveCount(1);
  await expect(row).toBeVisible();
  await ben.getByLabel("Tag", { exact: true }).fill("");

  // Snoozed for an hour, it leaves All for Snoozed; the thread says until when.
  await ben.getByRole("combobox", { name: "Snooze" }).selectOption({ label: "For 1 hour" });
  await expect(ben.getByTestId("assignee")).toContainText("Snoozed until");
  await ben.getByRole("tab", { name: "All" }).click();
  await expect(row).toHaveCount(0);
  await ben.getByRole("tab", { name: "Snoozed" }).click();
  await expect(row).toBeVisible();
  await ben.screenshot({ path: "test-results/screens/conversation-wide-layout.png" });

  // Ben allowed notifications; away from that thread, a new message in his conversation shows one, and ends the
  // snooze. (Headless Chromium shows none: the page's Notification records what it is asked to show.)
  await ben.context().addInitScript(() => {
    const shown: { title: string; body?: string }[] = [];
    (window as unknown as { shown: typeof shown }).shown = shown;
    window.Notification = class {
      static permission = "granted";
      static requestPermission = async () => "granted";
      onclick: (() => void) | null = null;
      constructor(title: string, options?: { body?: string }) {
        shown.push({ title, body: options?.body });
      }
    } as unknown as typeof Notification;
  });
  await ben.goto(server.baseUrl + "/conversations");
  await ben.getByRole("tab", { name: "Snoozed" }).click();
  await expect(row).toBeVisible();
  await parley(
    ["inbound", "--from", "+14155550188", "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", "On my way!"],
    server.database.url,
  );
  await expect
    .poll(() => ben.evaluate(() => (window as unknown as { shown: unknown[] }).shown), { timeout: 10_000 })
    .toEqual([{ title: expect.stringMatching(/^New message from /), body: "On my way!" }]);
  await expect(row).toHaveCount(0);
  await ben.getByRole("tab", { name: "All" }).click();
  await expect(row).toBeVisible();
  await row.click();
  await expect(ben).toHaveURL(/\/conversations\/[0-9a-f-]+$/);

  // On a phone the list and the thread are two screens, and Send is in view when the thread opens.
  await ben.setViewportSize({ width: 390, height: 844 });
  await ben.reload();
  await expect(list).toBeHidden();
  await expect(ben.getByRole("button", { name: "Send" })).toBeInViewport();
  await ben.getByRole("button", { name: "Contact details" }).click();
  await expect(ben.getByRole("region", { name: "Contact" }).getByRole("textbox", { name: "Tags" })).toHaveValue("vip");
  await ben.getByRole("link", { name: "← Conversations" }).click();
  await expect(list).toBeVisible();
});
