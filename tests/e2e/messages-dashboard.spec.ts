import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

// The Messages page, the message page with its live timeline, and the dashboard, clicked through in Chromium against
// a server that runs the delivery worker with the simulator (receipts 1.5 s after each submit, so a message can be
// watched on its way), and a webhook receiver that refuses the failed message's status event. One signed-in browser
// context serves the whole file, in order.

let server: RunningServer;
let demo: DemoCredentials;
let context: BrowserContext;
let page: Page;
let receiver: WebhookReceiver;
const ids = {} as { watched: string; failed: string; rejected: string };

const OPTED_OUT = "14155550199";
const FAILS = "14155550001"; // the simulator fails every message to a number ending in 0001
const BATCH = Array.from({ length: 12 }, (_, i) => `1415555${String(1200 + i).padStart(4, "0")}`);

test.describe.configure({ mode: "serial" });

async function api(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(server.baseUrl + path, {
    method: "POST",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { data: Record<string, unknown> }).data;
}

async function send(from: string, to: string | string[], body: string): Promise<string[]> {
  const data = await api("/v3/messages", {
    accountId: demo.accountId,
    from,
    ...(Array.isArray(to) ? { toArray: to, bulk: false } : { to }),
    body,
  });
  return (data.messageInfo as { messageId: string }[]).map((m) => m.messageId);
}

const shot = (name: string) => page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  server = await startServer({
    env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "1500", WEBHOOK_ALLOW_PRIVATE: "true" },
  });
  demo = await createDemoAccount(server.database.url);
  receiver = await startWebhookReceiver();
  receiver.respond = (request) => ({ status: request.json.to === FAILS ? 500 : 200 });
  const hook = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/webhook`, {
    method: "PUT",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ url: receiver.url }),
  });
  expect(hook.status, await hook.text()).toBe(200);
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
});

test.afterAll(async () => {
  await context?.close();
  await server?.stop();
  await receiver?.close();
});

test("an empty list says how to send the first message", async () => {
  await page.goto(server.baseUrl + "/messages");
  await expect(page.getByRole("heading", { name: "No messages yet" })).toBeVisible();
  const command = page.locator("pre");
  await expect(command).toContainText(`"accountId": "${demo.accountId}"`);
  await expect(command).toContainText(`${server.baseUrl}/v3/messages`);
  await expect(page.getByRole("main").getByRole("link", { name: "phone simulator" })).toBeVisible();
  await shot("messages-empty");
});

test("a sent message's timeline moves to delivered without a reload", async () => {
  test.setTimeout(90_000);
  await api(`/api/admin/accounts/${demo.accountId}/opt/numbers`, { number: OPTED_OUT, action: "out" });
  // Twelve messages ahead of it on the same number (one a second), so that it is seen waiting, then on its way.
  await send(demo.numbers[0]!, BATCH, "Batch message");
  ids.watched = (await send(demo.numbers[0]!, "14155550123", "Watch me move"))[0]!;
  ids.failed = (await send(demo.numbers[1]!, FAILS, "Doomed to fail"))[0]!;
  ids.rejected = (await send(demo.numbers[1]!, OPTED_OUT, "You said stop"))[0]!;

  // Meanwhile the dashboard shows the first number's queue and how long it takes to drain at one a second.
  await page.goto(server.baseUrl + "/");
  const first = page.getByRole("region", { name: "Queues" }).getByRole("row").filter({ hasText: "+12025550100" });
  await expect(first.getByRole("cell").nth(1)).toHaveText(/^(1[0-3])$/);
  await expect(first).toContainText(/≈ 1\d s/);
  await shot("dashboard-queues");

  await page.goto(`${server.baseUrl}/messages/${ids.watched}`);
  await expect(page.getByRole("heading", { name: "Outbound message" })).toBeVisible();
  await expect(page.getByText("On its way: updating live")).toBeVisible();
  const timeline = page.getByRole("list", { name: "Timeline" });
  await expect(timeline.getByText("queued", { exact: true })).toBeVisible();
  await expect(page.getByText("Watch me move", { exact: true })).toBeVisible();
  await shot("message-in-flight");

  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  await expect(timeline.getByText("message_sent", { exact: true })).toBeVisible({ timeout: 40_000 });
  await expect(timeline.getByText("delivered", { exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(timeline.getByText("dlr_received", { exact: true })).toBeVisible();
  await expect(page.getByText("Final status")).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  // The receipt's note, and the time since the previous record.
  await expect(timeline.getByText(/stat:DELIVRD err:000/)).toBeVisible();
  await expect(timeline.getByText(/^\+\d/).first()).toBeVisible();
  await shot("message-delivered");
});

test("a failed and a refused message say why in plain words", async () => {
  await page.goto(`${server.baseUrl}/messages/${ids.failed}`);
  const alert = page.getByRole("alert").filter({ hasText: "carrier" });
  await expect(alert).toContainText("The carrier could not deliver the message to the phone.", { timeout: 20_000 });
  await expect(alert).toContainText("The phone simulator fails every message to numbers ending in 0001.");
  await expect(alert).toContainText("stat:UNDELIV err:069");
  await shot("message-failed");

  await page.goto(`${server.baseUrl}/messages/${ids.rejected}`);
  await expect(page.getByRole("main").getByRole("alert")).toContainText(
    "The recipient opted out (texted STOP), so Parley did not send it.",
  );
  await expect(page.getByText("Final status")).toBeVisible();
  await shot("message-rejected");
});

test("the list filters by status, to and body, sorts, pages, and keeps it all in the URL", async () => {
  await page.goto(server.baseUrl + "/messages?count=10");
  const table = page.getByRole("table");
  await expect(page.getByText("1–10 of 15 messages")).toBeVisible();
  // Newest first: the last two sent lead.
  await expect(table.getByRole("row").nth(1)).toContainText("You said stop");

  await page.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/start=10/);
  await expect(page.getByText("11–15 of 15 messages")).toBeVisible();
  await page.goBack();
  await expect(page).not.toHaveURL(/start=/);
  await expect(page.getByText("1–10 of 15 messages")).toBeVisible();

  // Sorting: a click on a header sorts by it, a second click turns the order round.
  const toHeader = page.getByRole("columnheader", { name: "To" });
  await toHeader.getByRole("button").click();
  await expect(toHeader).toHaveAttribute("aria-sort", "ascending");
  await expect(page).toHaveURL(/sortBy=to&sortDir=asc/);
  await expect(table.getByRole("row").nth(1)).toContainText("+14155550001");
  await toHeader.getByRole("button").click();
  await expect(toHeader).toHaveAttribute("aria-sort", "descending");
  await expect(table.getByRole("row").nth(1)).toContainText("+14155551211");
  await expect(page.getByRole("columnheader", { name: "Time" })).not.toHaveAttribute("aria-sort");

  // Filters: a choice applies at once; text applies with the button.
  await page.getByLabel("Status", { exact: true }).selectOption("rejected");
  await expect(page).toHaveURL(/status=rejected/);
  await expect(page.getByText("1–1 of 1 messages")).toBeVisible();
  await expect(table).toContainText("You said stop");
  await page.getByLabel("Status", { exact: true }).selectOption("");
  await page.getByLabel("To", { exact: true }).fill("+14155550001");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/to=%2B14155550001/);
  await expect(page.getByText("1–1 of 1 messages")).toBeVisible();
  await expect(table).toContainText("Doomed to fail");
  await page.getByLabel("To", { exact: true }).fill("");
  await page.getByLabel("Body contains").fill("BATCH");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByText("1–10 of 12 messages")).toBeVisible();
  await page.getByLabel("Status", { exact: true }).selectOption("failed");
  await expect(page.getByText("No messages match these filters")).toBeVisible();
  await page.getByLabel("Status", { exact: true }).selectOption("");
  await expect(page.getByText("1–10 of 12 messages")).toBeVisible();
  await shot("messages-filtered");

  // A bookmark brings the same view back.
  const bookmark = page.url();
  await page.goto(server.baseUrl + "/");
  await page.goto(bookmark);
  await expect(page.getByLabel("Body contains")).toHaveValue("BATCH");
  await expect(page.getByText("1–10 of 12 messages")).toBeVisible();

  // A bad filter gets the API's own words beside the field.
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await page.getByText("More filters").click();
  await page.getByLabel("Since").fill("yesterday");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page.getByLabel("Since")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByRole("alert").filter({ hasText: "'timestampBegin' must be ISO 8601" })).toHaveText(
    "Invalid Request: 'timestampBegin' must be ISO 8601 (2026-11-21T22:52:12Z) or 'YYYY-MM-DD HH:mm:ss.SSS' (UTC)",
  );
  await shot("messages-bad-filter");

  // A row opens its message.
  await page.goto(server.baseUrl + "/messages?body=doomed");
  await page.getByRole("row").filter({ hasText: "Doomed to fail" }).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/messages/${ids.failed}$`));
  await expect(page.getByText("Doomed to fail", { exact: true })).toBeVisible();
});

test("another account's message id is a 404 page, never its data", async () => {
  const other = await createDemoAccount(server.database.url);
  const res = await fetch(server.baseUrl + "/v3/messages", {
    method: "POST",
    headers: { apikey: other.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ accountId: other.accountId, from: other.numbers[0], to: "14155550123", body: "Not yours" }),
  });
  const theirs = ((await res.json()) as { data: { messageInfo: { messageId: string }[] } }).data.messageInfo[0]!;
  const response = await page.goto(`${server.baseUrl}/messages/${theirs.messageId}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Message not found" })).toBeVisible();
  await expect(page.getByText("Not yours")).toHaveCount(0);
});

test("the dashboard shows today's counts, queues, webhook health and the carrier", async () => {
  await page.goto(server.baseUrl + "/");
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  const carrier = page.getByRole("region", { name: "Carrier" });
  await expect(carrier.getByText("connected (simulator)")).toBeVisible();
  await expect(page.getByRole("link", { name: "failed: 1 today" })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("link", { name: "rejected: 1 today" })).toBeVisible();
  // Each number's queue; the batch drains one a second, and the dashboard follows on its own.
  const queues = page.getByRole("region", { name: "Queues" });
  await expect(queues.getByText("+12025550100")).toBeVisible();
  // The receiver refused the failed message's status event: it waits for its retry.
  const webhook = page.getByRole("region", { name: "Webhook" });
  await expect(webhook).toContainText(receiver.url);
  await expect(webhook).toContainText("HTTP 500");
  await expect(webhook).toContainText(/1 event waiting/);
  await expect(webhook).toContainText(/% accepted \(\d+ of \d+ attempts\)/);
  await expect(page.getByRole("link", { name: "delivered: 13 today" })).toBeVisible({ timeout: 30_000 });
  await expect(queues.getByText("Nothing is waiting")).toBeVisible();
  await shot("dashboard");

  // A tile opens the list filtered to it.
  await page.getByRole("link", { name: "failed: 1 today" }).click();
  await expect(page).toHaveURL(/status=failed&timestampBegin=/);
  await expect(page.getByText("1–1 of 1 messages")).toBeVisible();
});

test("a message scheduled for later can be cancelled from its page; then there is nothing left to cancel", async () => {
  const sendAt = new Date(Date.now() + 3_600_000).toISOString();
  const data = await api("/v3/messages", {
    accountId: demo.accountId,
    from: demo.numbers[1],
    to: "14155550177",
    body: "See you tomorrow at nine",
    sendAt,
  });
  const id = (data.messageInfo as { messageId: string }[])[0]!.messageId;
  await page.goto(`${server.baseUrl}/messages/${id}`);
  await expect(page.getByText("A scheduled message: it joins the queue at its time.")).toBeVisible();
  await expect(page.getByText("Scheduled for", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel this message?" });
  await expect(dialog).toContainText("It will not be sent at its scheduled time.");
  await dialog.getByRole("button", { name: "Cancel message" }).click();
  await expect(page.getByText("The message was cancelled before it was sent.")).toBeVisible();
  await expect(page.getByText(/Cancelled by .+ in the portal\./)).toBeVisible();
  await expect(page.getByRole("list", { name: "Timeline" }).getByText("cancelled", { exact: true })).toBeVisible();
  await expect(page.getByText("Final status")).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel", exact: true })).toHaveCount(0);
  await shot("message-cancelled");
});

test("a 390 px wide window shows the list, a message and the dashboard without sideways scrolling", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const fits = async () =>
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

  await page.goto(server.baseUrl + "/messages?count=10");
  await expect(page.getByRole("list", { name: "Messages list" }).getByRole("link")).toHaveCount(10);
  await fits();
  await shot("messages-390");

  await page.goto(`${server.baseUrl}/messages/${ids.failed}`);
  await expect(page.getByRole("list", { name: "Timeline" })).toBeVisible();
  await fits();
  await shot("message-390");

  await page.goto(server.baseUrl + "/");
  await expect(page.getByRole("region", { name: "Carrier" })).toBeVisible();
  await fits();
  await shot("dashboard-390");
});
