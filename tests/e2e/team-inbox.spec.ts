import type { Browser, Page } from "@playwright/test";
import { expect as baseExpect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";
import { portalCookie } from "../helpers/portal-session";

// The team inbox as a team uses it: an admin and two agents, each in a browser window of their own, on one server.
// The admin imports contacts and saves a canned reply; a phone texts in and the conversation is unassigned; Ana
// takes it and Ben sees that live, and sees her typing; her note mentioning the admin reaches the admin; her canned
// reply goes out with the contact's first name in it and the segment count of that text; she resolves it, and the
// phone's next message reopens it. The phone is the simulator's inbound route (the phone side, not a user's).
// Generous waits: the machine the suite runs on may be busy (a sign-in hashes a password).
const expect = baseExpect.configure({ timeout: 20_000 });
let server: RunningServer;
let demo: DemoCredentials;
let adminCookie: string;
const ana = { email: "ana.lima@team.example", password: "", name: "Ana Lima" };
const ben = { email: "ben.okafor@team.example", password: "", name: "Ben Okafor" };
const PHONE = "+14155550142";
const CSV = [
  "name,phone,email,tags",
  "Dana Whitfield,+14155550142,dana@example.com,vip;wholesale",
  "Rory Hale,+14155550143,rory@example.com,",
].join("\n");
const TEMPLATE =
  "Hi {{contact.first_name}}, this is {{agent.first_name}} from the Parley shop. Your parcel left our warehouse this " +
  "morning and should reach you within two working days. The courier will text you a delivery window on the day. " +
  "If nothing has arrived by Friday, reply here and we will send a new one at no cost.";
// What goes out: 272 GSM-7 characters, two segments of 153 (the template as written, braces and all, would be three).
const SENT = TEMPLATE.replace("{{contact.first_name}}", "Dana").replace("{{agent.first_name}}", "Ana");

test.beforeAll(async () => {
  // A server and a CLI process: slow on a busy machine.
  test.setTimeout(120_000);
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "200" } });
  demo = await createDemoAccount(server.database.url);
  adminCookie = await portalCookie(server, demo.email, demo.password);
  // The agents are added as the Users page adds them; each answer carries the initial password.
  for (const agent of [ana, ben]) {
    const added = await asAdmin<{ password: string }>("/users", {
      email: agent.email,
      name: agent.name,
      role: "agent",
    });
    agent.password = added.password;
  }
});

test.afterAll(async () => {
  await server?.stop();
});

/** A portal request as the demo admin, outside the browsers: setup, and the phone simulator. */
async function asAdmin<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}${path}`, {
    method: "POST",
    headers: { cookie: adminCookie, origin: server.baseUrl, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

/** The phone texts the account's first number, through the phone simulator's inbound route. */
const phoneTexts = (text: string) =>
  asAdmin("/simulator/inbound", { phone: PHONE, accountNumber: demo.numbers[0], text });

/** A browser window of its own, signed in on the sign-in page. */
async function signedIn(browser: Browser, who: { email: string; password: string }): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  return page;
}

const messages = (page: Page) => page.getByRole("log", { name: "Messages" });
const bubble = (page: Page, text: string) => messages(page).locator("li[data-message-id]").filter({ hasText: text });
const presence = (page: Page) => page.getByRole("list", { name: "Also in this conversation" });
const row = (page: Page) =>
  page.getByRole("list", { name: "Conversations" }).getByRole("link", { name: /Dana Whitfield/ });
const nav = (page: Page, name: RegExp) => page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name });

test("an admin and two agents share a conversation from first message to reopened, each seeing the others live", async ({
  browser,
}) => {
  // Some 20 s on a quiet machine; the margin is for a busy one.
  test.setTimeout(90_000);
  const [admin, anaPage, benPage] = await Promise.all([
    signedIn(browser, demo),
    signedIn(browser, ana),
    signedIn(browser, ben),
  ]);

  // The admin imports the contacts, then saves a canned reply for everyone.
  await nav(admin, /^Contacts/).click();
  const chooser = admin.waitForEvent("filechooser");
  await admin.getByRole("button", { name: "Import CSV" }).click();
  await (await chooser).setFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
  await expect(admin.getByText("Imported 2 (2 new, 0 updated), 0 unchanged, 0 bad rows.")).toBeVisible();
  await expect(admin.getByRole("list", { name: "Contacts" })).toContainText("Dana Whitfield");
  await nav(admin, /^Canned replies/).click();
  await admin.getByRole("button", { name: "New canned reply" }).click();
  await admin.getByRole("textbox", { name: "Shortcut" }).fill("parcel");
  await admin.getByRole("textbox", { name: "Text" }).fill(TEMPLATE);
  await admin.getByRole("button", { name: "Save canned reply" }).click();
  await expect(admin.locator("[data-canned-reply=parcel]")).toContainText("Everyone");

  // All three watch their lists; the phone texts in: the conversation appears, under the imported name, unassigned.
  await nav(admin, /^Conversations/).click();
  await Promise.all([anaPage, benPage].map((page) => page.goto(server.baseUrl + "/conversations")));
  for (const page of [admin, anaPage, benPage]) {
    await expect(page.getByRole("tab", { name: "Unassigned" })).toContainText("0");
  }
  await phoneTexts("Hi, where is my parcel?");
  for (const page of [admin, anaPage, benPage]) {
    await expect(row(page).locator("[data-assignee]")).toHaveText("Unassigned");
    await expect(page.getByRole("tab", { name: "Unassigned" })).toContainText("1");
  }

  // Ben opens it; Ana finds it under Unassigned and opens it too: each sees the other there.
  await row(benPage).click();
  await expect(benPage.getByRole("heading", { level: 1, name: /Dana Whitfield/ })).toBeVisible();
  await anaPage.getByRole("tab", { name: "Unassigned" }).click();
  await row(anaPage).click();
  await expect(bubble(anaPage, "Hi, where is my parcel?")).toBeVisible();
  await expect(presence(benPage).getByText("Ana Lima is viewing")).toBeVisible();
  await expect(presence(anaPage).getByText("Ben Okafor is viewing")).toBeVisible();
  await expect(benPage.getByTestId("assignee")).toHaveText("Unassigned");

  // Ana takes it. Ben's thread says so without a reload, and he can no longer take it; the admin's list shows it.
  await anaPage.getByRole("button", { name: "Assign" }).click();
  await anaPage.getByRole("listbox", { name: "Assign to" }).getByRole("option", { name: "Ana Lima (you)" }).click();
  await expect(anaPage.getByTestId("assignee")).toHaveText("Assigned to Ana Lima");
  await expect(benPage.getByTestId("assignee")).toHaveText("Assigned to Ana Lima");
  await expect(messages(benPage).getByText("Ana Lima took this")).toBeVisible();
  await benPage.getByRole("button", { name: "Assign" }).click();
  const benOptions = benPage.getByRole("listbox", { name: "Assign to" });
  await expect(benOptions.getByRole("option", { name: "Ben Okafor (you)" })).toHaveAttribute("aria-disabled", "true");
  await benPage.getByRole("button", { name: "Assign" }).click();
  await expect(benOptions).toHaveCount(0);
  await expect(row(admin).locator("[data-assignee]")).toHaveText("Ana Lima");
  await expect(admin.getByRole("tab", { name: "Unassigned" })).toContainText("0");

  // Ana writes a note mentioning the admin: it reaches the admin's sidebar live, and the thread when opened.
  await anaPage.getByRole("button", { name: "Note", exact: true }).click();
  await anaPage.getByRole("textbox", { name: "Internal note" }).fill("@Demo admin can we waive the delivery fee?");
  await anaPage.getByRole("button", { name: "Add note" }).click();
  await expect(messages(anaPage).getByRole("note", { name: "Note by Ana Lima" })).toBeVisible();
  await expect(messages(benPage).getByRole("note", { name: "Note by Ana Lima" })).toBeVisible();
  const badge = admin.getByTestId("mention-badge");
  await expect(badge).toContainText("@1");
  await expect(admin.getByRole("button", { name: "Enable notifications" })).toBeVisible();
  await row(admin).click();
  await expect(messages(admin).getByRole("note", { name: "Note by Ana Lima" })).toContainText(
    "@Demo admin can we waive the delivery fee?",
  );
  await expect(badge).toHaveCount(0);
  await anaPage.getByRole("button", { name: "Reply", exact: true }).click();

  // Ana types "/parc": Ben sees her typing; the picker puts in the reply with the contact's and Ana's first names,
  // and the counter counts that text, before it is sent.
  await expect(presence(benPage).getByText("Ana Lima is viewing")).toBeVisible();
  const box = anaPage.getByRole("textbox", { name: "Message" });
  await box.pressSequentially("/parc", { delay: 30 });
  await expect(presence(benPage).getByText("Ana Lima is typing…")).toBeVisible();
  const picker = anaPage.getByRole("listbox", { name: "Canned replies" });
  await expect(picker.getByRole("option", { name: /\/parcel/ })).toBeVisible();
  await box.press("Enter");
  await expect(picker).toHaveCount(0);
  await expect(box).toHaveValue(SENT);
  const counter = anaPage.getByTestId("segment-counter");
  await expect(counter).toHaveText(`${SENT.length} characters · 2 segments · GSM-7`);
  await box.press("Enter");
  await expect(box).toHaveValue("");

  // It goes out: delivered in Ana's thread, live in Ben's and the admin's, and two segments on its message page.
  const sent = bubble(anaPage, "Hi Dana, this is Ana from the Parley shop.");
  await expect(sent.locator("[data-state=delivered]")).toBeVisible();
  await expect(sent).toContainText(SENT);
  for (const page of [benPage, admin]) await expect(bubble(page, "Hi Dana, this is Ana")).toContainText(SENT);
  const details = await anaPage.context().newPage();
  await details.goto(`${server.baseUrl}/messages/${await sent.getAttribute("data-message-id")}`);
  const segments = details.locator("dt", { hasText: "Segments" }).locator("xpath=following-sibling::dd[1]");
  await expect(segments).toHaveText("2 · GSM7");
  await details.close();

  // Ana resolves it: Ben and the admin see it resolved live.
  await anaPage.getByRole("button", { name: "Resolve" }).click();
  await expect(anaPage.getByTestId("assignee")).toHaveText("Assigned to Ana Lima · Resolved");
  for (const page of [benPage, admin]) {
    await expect(page.getByRole("button", { name: "Reopen" })).toBeVisible();
    await expect(messages(page).getByText("Ana Lima resolved this")).toBeVisible();
  }

  // The phone writes again: the conversation is open again, still Ana's, in all three windows.
  await phoneTexts("Thanks! It came today but the box is damaged.");
  for (const page of [anaPage, benPage, admin]) {
    await expect(bubble(page, "the box is damaged")).toBeVisible();
    await expect(page.getByRole("button", { name: "Resolve" })).toBeVisible();
    await expect(page.getByTestId("assignee")).toHaveText("Assigned to Ana Lima");
    await expect(messages(page).getByText("Reopened by a new message")).toBeVisible();
  }
  for (const page of [admin, anaPage, benPage]) await page.context().close();
});
