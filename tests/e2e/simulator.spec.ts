import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// The phone simulator: an admin plays a phone against the real server with its delivery worker and the simulator
// carrier, while the account talks to it through the public API.

let server: RunningServer;
let demo: DemoCredentials;

test.beforeAll(async () => {
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "300" } });
  demo = await createDemoAccount(server.database.url);
});

test.afterAll(async () => {
  await server?.stop();
});

const digits = (number: string) => number.replace(/^\+/, "");

async function signIn(page: Page) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
}

async function sendFromApi(to: string, body: string) {
  const res = await fetch(`${server.baseUrl}/v3/messages`, {
    method: "POST",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ accountId: demo.accountId, from: digits(demo.numbers[0]!), to, body }),
  });
  expect(res.status).toBe(200);
  const json = (await res.json()) as { data: { messageInfo: { status: string; reason?: string }[] } };
  return json.data.messageInfo[0]!;
}

async function openPhone(page: Page, phone: string) {
  await page.getByLabel("Phone number").fill(phone);
  await page.getByLabel("Account number").selectOption(digits(demo.numbers[0]!));
  await page.getByRole("button", { name: "Open phone" }).click();
  const card = page.getByRole("region", { name: `Phone ${phone} texting ${demo.numbers[0]}` });
  await expect(card).toBeVisible();
  return card;
}

test("an admin plays a phone: texts the demo number, receives the account's messages, opts out and back in", async ({
  page,
}) => {
  const phone = "+14155550123";
  await signIn(page);
  await page.getByRole("link", { name: "Phone simulator" }).click();
  await expect(page.getByRole("heading", { name: "Phone simulator" })).toBeVisible();
  await expect(page.getByText("No phone is open")).toBeVisible();
  await expect(page.getByRole("complementary", { name: "How the simulated network answers" })).toContainText(
    "undelivered",
  );
  await page.screenshot({ path: "test-results/screens/simulator-empty.png", fullPage: true });

  // A number that is not E.164 is refused beside the field, before anything is sent.
  await page.getByLabel("Phone number").fill("12345");
  await page.getByRole("button", { name: "Open phone" }).click();
  await expect(page.getByText("Phone number is not a valid phone number")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/simulator-invalid-phone.png", fullPage: true });

  const card = await openPhone(page, phone);
  await expect(card.getByText("No messages yet")).toBeVisible();

  // The phone texts the account: an inbound message, listed by the API like a real phone's.
  await card.getByLabel("Text from phone").fill("Hello");
  await card.getByRole("button", { name: "Send from phone" }).click();
  await expect(card.getByRole("listitem").filter({ hasText: "Hello" })).toBeVisible();
  await expect(card.getByLabel("Text from phone")).toHaveValue("");
  const listed = await fetch(
    `${server.baseUrl}/v3/messages?accountId=${demo.accountId}&direction=inbound&from=${digits(phone)}`,
    { headers: { apikey: demo.apiKey } },
  );
  const inbound = (await listed.json()) as { data: { results: { body: string; to: string }[] } };
  expect(inbound.data.results).toEqual([expect.objectContaining({ body: "Hello", to: digits(demo.numbers[0]!) })]);

  // The account answers through the API: it arrives on the phone with its delivery state.
  expect((await sendFromApi(digits(phone), "Your table is ready")).status).toBe("accepted");
  const answer = card.getByRole("listitem").filter({ hasText: "Your table is ready" });
  await expect(answer).toBeVisible({ timeout: 10_000 });
  await expect(answer).toContainText("delivered", { timeout: 10_000 });
  await page.screenshot({ path: "test-results/screens/simulator-conversation.png", fullPage: true });

  // STOP: the automatic reply arrives on the phone, and the account can no longer send to it.
  await card.getByRole("button", { name: "STOP", exact: true }).click();
  const stopReply = card.getByRole("listitem").filter({ hasText: "you are unsubscribed" });
  await expect(stopReply).toBeVisible({ timeout: 10_000 });
  await expect(stopReply).toContainText("automatic reply");
  await expect(stopReply).toContainText("delivered", { timeout: 10_000 });
  await expect(card.getByText("opted out")).toBeVisible();
  expect(await sendFromApi(digits(phone), "One more offer")).toMatchObject({ status: "rejected", reason: "OptedOut" });
  const refused = card.getByRole("listitem").filter({ hasText: "One more offer" });
  await expect(refused).toContainText("Never reached the phone: OptedOut");
  await page.screenshot({ path: "test-results/screens/simulator-after-stop.png", fullPage: true });

  // START opts back in: the confirmation arrives and sends go through again.
  await card.getByRole("button", { name: "START", exact: true }).click();
  await expect(card.getByRole("listitem").filter({ hasText: "you are subscribed again" })).toBeVisible({
    timeout: 10_000,
  });
  await expect(card.getByText("opted in")).toBeVisible();
  expect((await sendFromApi(digits(phone), "Welcome back")).status).toBe("accepted");
  await expect(card.getByRole("listitem").filter({ hasText: "Welcome back" })).toContainText("delivered", {
    timeout: 10_000,
  });
});

test("several phones at once on a 390 px wide window, each with its own conversation", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page);
  await page.goto(server.baseUrl + "/simulator");
  const first = await openPhone(page, "+14155550124");
  // A phone ending 0000: the simulated network reports its messages undelivered.
  const second = await openPhone(page, "+14155550000");
  await expect(second).toContainText("Simulated network: undelivered");
  await second.getByLabel("Text from phone").fill("Is the shop open today?");
  await second.getByLabel("Text from phone").press("Enter");
  await expect(second.getByRole("listitem").filter({ hasText: "Is the shop open today?" })).toBeVisible();
  await sendFromApi("14155550000", "Yes, until 6 pm");
  await expect(second.getByRole("listitem").filter({ hasText: "Yes, until 6 pm" })).toContainText("undelivered", {
    timeout: 10_000,
  });
  await expect(first.getByText("No messages yet")).toBeVisible();
  await expect(first.getByRole("listitem").filter({ hasText: "Is the shop open today?" })).toHaveCount(0);

  // The page fits the window: nothing runs off to the right.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: "test-results/screens/simulator-narrow.png", fullPage: true });

  // A long thread shows its last 50 messages, the earlier ones on demand.
  for (let n = 1; n <= 55; n++) {
    const res = await page.request.post(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/simulator/inbound`, {
      data: { phone: "+14155550124", accountNumber: demo.numbers[0], text: `Message number ${n}` },
    });
    expect(res.status()).toBe(200);
  }
  await expect(first.getByRole("listitem").filter({ hasText: "Message number 55" })).toBeVisible();
  await expect(first.getByText("Message number 6", { exact: true })).toBeAttached();
  await expect(first.getByText("Message number 5", { exact: true })).toHaveCount(0);
  await first.getByRole("button", { name: "Show earlier messages (5 more)" }).click();
  await expect(first.getByText("Message number 1", { exact: true })).toBeAttached();
  await expect(first.getByRole("button", { name: /Show earlier messages/ })).toHaveCount(0);
  await page.screenshot({ path: "test-results/screens/simulator-long-thread.png", fullPage: true });

  // Open phones stay open after a reload; closing one removes it.
  await page.reload();
  await expect(second.getByRole("listitem").filter({ hasText: "Yes, until 6 pm" })).toBeVisible();
  await first.getByRole("button", { name: "Close phone +14155550124" }).click();
  await expect(first).toHaveCount(0);
  await expect(second).toBeVisible();
});

test("an open phone takes the account's messages from the live feed, not by reading its thread again", async ({
  page,
}) => {
  const phone = "+14155550125";
  await signIn(page);
  await page.goto(server.baseUrl + "/simulator");
  const card = await openPhone(page, phone);
  await card.getByLabel("Text from phone").fill("Table for two?");
  await card.getByRole("button", { name: "Send from phone" }).click();
  await expect(card.getByRole("listitem").filter({ hasText: "Table for two?" })).toBeVisible();
  // Let the reads the phone's own text caused finish, then count every read of a phone's thread from here on.
  await page.waitForTimeout(1_000);
  const reads: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/simulator/thread")) reads.push(request.url());
  });

  expect((await sendFromApi(digits(phone), "Yes, at 8")).status).toBe("accepted");
  const answer = card.getByRole("listitem").filter({ hasText: "Yes, at 8" });
  await expect(answer).toBeVisible({ timeout: 10_000 });
  await expect(answer).toContainText("delivered", { timeout: 10_000 });
  // Every step (queued, sent, delivered) came over the socket into the open phone.
  expect(reads).toEqual([]);
  await page.screenshot({ path: "test-results/screens/simulator-live.png", fullPage: true });
});
