import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { Webhook } from "standardwebhooks";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, parley, type DemoCredentials } from "../helpers/cli";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../helpers/webhook-receiver";

// The webhook and opt-outs pages, clicked through as the demo admin: a real receiver on loopback (allowed by
// WEBHOOK_ALLOW_PRIVATE), the worker on so real events are delivered, and the CLI playing the phones.

let server: RunningServer;
let demo: DemoCredentials;
let receiver: WebhookReceiver;
let failing = false;
const TOKEN = "Bearer e2e-receiver-token-7781";

test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiver.respond = () => (failing ? { status: 500, body: "receiver down for maintenance" } : { status: 200 });
  server = await startServer({
    env: {
      PARLEY_WORKER: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "50",
      // A failed attempt waits a minute for its retry: the test resends it by hand first.
      WEBHOOK_RETRY_SECONDS: "60",
      WEBHOOK_TIMEOUT_SECONDS: "3",
    },
  });
  demo = await createDemoAccount(server.database.url);
});

test.afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function signIn(page: Page) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

const panel = (page: Page, title: string) =>
  page.locator("section", { has: page.getByRole("heading", { name: title, exact: true }) });

const signed = (request: ReceivedRequest, secret: string) =>
  new Webhook(secret).verify(request.body, {
    "webhook-id": request.headers["webhook-id"] as string,
    "webhook-timestamp": request.headers["webhook-timestamp"] as string,
    "webhook-signature": request.headers["webhook-signature"] as string,
  });

/** A full-page screenshot from the top (the sidebar is fixed: scrolled, it would be drawn mid-page). */
async function screenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
}

async function inbound(from: string, body: string) {
  await parley(["inbound", "--from", from, "--to", demo.numbers[0]!, "--body", body], server.database.url);
}

test("webhook: settings with a masked header, the secret, a test event, deliveries, a failure and a resend", async ({
  page,
}) => {
  await signIn(page);
  await page.goto(server.baseUrl + "/webhook");
  await expect(page.getByRole("heading", { name: "Webhook", level: 1 })).toBeVisible();
  await expect(page.getByText("No webhook URL is saved")).toBeVisible();
  await expect(page.getByText("No events yet")).toBeVisible();
  await expect(page.getByRole("button", { name: "Send test event" })).toBeDisabled();
  await screenshot(page, "webhook-empty");

  // The form checks with the route's own schema before anything is sent.
  const endpoint = panel(page, "Endpoint");
  await endpoint.getByLabel("URL", { exact: true }).fill("ftp://example.com/hooks");
  await endpoint.getByRole("button", { name: "Save" }).click();
  await expect(endpoint.getByText("The webhook URL must use http or https")).toBeVisible();

  await endpoint.getByLabel("URL", { exact: true }).fill(receiver.url);
  await endpoint.getByLabel("Header name").fill("Authorization");
  await endpoint.getByLabel("Header value").fill(TOKEN);
  await endpoint.getByRole("button", { name: "Save" }).click();
  await expect(endpoint.getByText("Saved.")).toBeVisible();
  // The value is write-only from now on: masked, never shown back.
  await expect(endpoint.getByText("(set)")).toBeVisible();
  await expect(endpoint.getByLabel("Header value")).toHaveValue("");
  await expect(page.getByText(TOKEN)).toHaveCount(0);
  expect(await page.content()).not.toContain(TOKEN);

  const secretPanel = panel(page, "Signing secret");
  const secretBox = secretPanel.getByLabel("Secret signing secret");
  await expect(secretBox).not.toContainText("whsec_A");
  await secretPanel.getByRole("button", { name: "Reveal" }).click();
  await expect(secretBox).toHaveText(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await expect(secretPanel.getByRole("button", { name: "Copy" })).toBeVisible();
  const secret = (await secretBox.textContent())!;
  await screenshot(page, "webhook-secret-revealed");
  // It came from the Reveal request alone: the page's server-rendered HTML (with its initial data) never holds it.
  const html = await (await page.request.get(server.baseUrl + "/webhook")).text();
  expect(html).toContain("Signing secret");
  expect(html).not.toContain(secret);
  expect(html).not.toContain(secret.slice(6, 30));

  // A test event: signed with that secret, the receiver's answer on the page.
  await page.getByRole("button", { name: "Send test event" }).click();
  const result = page.getByRole("status", { name: "Test event result" });
  await expect(result).toContainText("HTTP 200");
  await expect(result).toContainText(/\d+ ms/);
  await expect(result).toContainText("ok");
  const test = await receiver.waitFor((r) => r.headers["parley-test"] === "true");
  expect(signed(test, secret)).toEqual(test.json);
  expect(test.headers.authorization).toBe(TOKEN);
  await expect(result).toContainText(test.headers["webhook-id"] as string);

  // A real event: a phone writes to the account's number.
  await inbound("+14155550123", "Hello from a phone");
  const real = await receiver.waitFor((r) => r.json.from === "14155550123");
  expect(signed(real, secret)).toEqual(real.json);
  expect(real.headers["parley-test"]).toBeUndefined();
  const log = page.getByRole("list", { name: "Webhook events" });
  await page.getByRole("button", { name: "Refresh" }).click();
  const delivered = log.locator(`li[data-event-id="${real.headers["webhook-id"]}"]`);
  await expect(delivered).toContainText("Inbound message");
  await expect(delivered).toContainText("from +14155550123");
  await expect(delivered).toContainText("delivered");
  await expect(log.locator("li", { hasText: "test" }).first()).toBeVisible();

  // The receiver fails: the attempt is logged with its status, and the event waits for its retry.
  failing = true;
  await inbound("+14155550124", "Anyone there?");
  const refused = await receiver.waitFor((r) => r.json.from === "14155550124");
  const eventId = refused.headers["webhook-id"] as string;
  const row = log.locator(`li[data-event-id="${eventId}"]`);
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(row).toContainText("HTTP 500", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await expect(row).toContainText("pending");
  await expect(row).toContainText("Next try");
  await row.getByRole("button", { name: /^Attempts of/ }).click();
  await expect(row.getByRole("table")).toContainText("500");
  await expect(row.getByRole("table")).toContainText("receiver down for maintenance");
  await expect(page.getByText("Last error")).toBeVisible();
  await screenshot(page, "webhook-log-failure");

  // Back up: a resend delivers it now, with the same webhook-id.
  failing = false;
  await row.getByRole("button", { name: /^Resend/ }).click();
  await expect(row.getByText("Queued again")).toBeVisible();
  await receiver.waitFor((r) => r.headers["webhook-id"] === eventId && r !== refused);
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(row).toContainText("delivered", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });

  // The failed events of a range: nothing has run out of retries, and the form says so.
  await page.getByLabel("Failed from").fill("2020-01-01T00:00");
  await page.getByLabel("Failed to").fill("2099-01-01T00:00");
  await page.getByRole("button", { name: "Resend failed" }).click();
  await expect(page.getByText("No failed events were created in that range.")).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "webhook-390");
});

test("opt-outs: a manual opt-out with a note in the trail, its CSV, and the STOP reply edited", async ({ page }) => {
  await signIn(page);
  await page.goto(server.baseUrl + "/opt-outs");
  await expect(page.getByRole("heading", { name: "Opt-outs", level: 1 })).toBeVisible();
  await expect(page.getByText("No opt changes yet")).toBeVisible();
  await expect(page.getByText("No number is opted out")).toBeVisible();
  await screenshot(page, "opt-outs-empty");

  const manual = panel(page, "Opt a number out or in");
  // The shape is checked in the page with the route's schema; whether the number exists, by the server.
  await manual.getByLabel("Number").fill("415 555");
  await manual.getByRole("button", { name: "Opt out" }).click();
  await expect(manual.getByText(/An E\.164 number/)).toBeVisible();
  await manual.getByLabel("Number").fill("+4155");
  await manual.getByRole("button", { name: "Opt out" }).click();
  await expect(manual.getByText('"+4155" is not a valid E.164 telephone number')).toBeVisible();
  await manual.getByLabel("Number").fill("+14155550199");
  await manual.getByLabel("Note").fill("asked by phone, ticket 42");
  await manual.getByRole("button", { name: "Opt out" }).click();
  await expect(manual.getByText("+14155550199 is opted out")).toBeVisible();

  const trail = panel(page, "Audit trail");
  const row = trail.getByRole("row", { name: /\+14155550199/ });
  await expect(row).toContainText("opted out");
  await expect(row).toContainText("Admin");
  await expect(row).toContainText(demo.email);
  await expect(row).toContainText("asked by phone, ticket 42");
  await expect(panel(page, "Opted-out numbers").getByText("+14155550199")).toBeVisible();

  // A phone's own STOP is in the trail too, by keyword.
  await inbound("+14155550123", "STOP");
  await page.reload();
  await expect(trail.getByRole("row", { name: /\+14155550123/ })).toContainText("Keyword STOP");
  await screenshot(page, "opt-outs-trail");

  // The CSV carries the filters on the page: this number only.
  await trail.getByLabel("Number").fill("+14155550199");
  await trail.getByLabel("Number").press("Enter");
  await expect(trail.getByRole("row")).toHaveCount(2);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    trail.getByRole("link", { name: "Download CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`opt-events-${demo.accountId}.csv`);
  const lines = (await readFile((await download.path())!, "utf8")).trimEnd().split("\r\n");
  expect(lines[0]).toBe("createdAt,number,action,source,keyword,messageId,actor,note,accountId,id");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(
    `,14155550199,out,admin,,,user:${demo.email},"asked by phone, ticket 42",${demo.accountId},`,
  );

  // The STOP reply: the default until edited, then the account's own, and back.
  const replies = panel(page, "Keyword replies and footer");
  const stop = replies.getByRole("textbox", { name: "STOP reply" });
  await expect(stop).toHaveValue(/^Demo: you are unsubscribed/);
  await stop.fill("Demo: you will get no more texts from us. Text START to come back.");
  await replies.getByRole("button", { name: "Save" }).click();
  await expect(replies.getByText("Saved.")).toBeVisible();
  await page.reload();
  await expect(replies.getByRole("textbox", { name: "STOP reply" })).toHaveValue(
    "Demo: you will get no more texts from us. Text START to come back.",
  );
  await expect(replies.getByText("Custom")).toBeVisible();
  await replies.getByRole("button", { name: "Use the default STOP reply" }).click();
  await expect(replies.getByRole("textbox", { name: "STOP reply" })).toHaveValue(/^Demo: you are unsubscribed/);
  await replies.getByRole("button", { name: "Save" }).click();
  await expect(replies.getByText("Saved.")).toBeVisible();
  await expect(replies.getByText("Custom")).toHaveCount(0);

  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, "opt-outs-390");
});
