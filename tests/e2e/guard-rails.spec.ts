import { randomInt } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// The guard rails as an admin meets them: set in Settings, the daily limit's banner on every page at 80 % and when it
// is reached, and a burst to an unusual range held on the dashboard, released once and cancelled the next time.
let server: RunningServer;
let demo: DemoCredentials;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "200" } });
  demo = await createDemoAccount(server.database.url);
});

test.afterAll(async () => {
  await server?.stop();
});

async function signIn(page: Page) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible({ timeout: 20_000 });
}

async function send(to: string[]): Promise<Response> {
  return fetch(`${server.baseUrl}/v3/messages`, {
    method: "POST",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify({
      accountId: demo.accountId,
      from: demo.numbers[0],
      toArray: to,
      body: "Code 1234",
      bulk: false,
    }),
  });
}

const home = () => `1312555${String(randomInt(1000, 10_000))}`;
const sierraLeone = () => `232761${String(randomInt(10_000, 100_000))}`;

test("an admin sets the guard rails, reviews a held burst and sees the daily limit coming", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.getByRole("link", { name: "Settings" }).click();
  const rails = page.getByRole("region", { name: "Guard rails" });
  await expect(rails.getByLabel("Allowed countries")).toHaveAttribute("placeholder", "The countries of your numbers");
  await rails.getByLabel("Allowed countries").fill("XX");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(rails.getByText(/XX, which is not a country code Parley knows/)).toBeVisible();
  await rails.getByLabel("Allowed countries").fill("US, SL");
  await rails.getByLabel("Daily message limit").fill("10");
  await rails.getByLabel("Burst hold threshold").fill("2");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();
  await page.reload();
  await expect(rails.getByLabel("Allowed countries")).toHaveValue("SL, US");

  // Four to one range of Sierra Leone's mobiles: two leave, two are held.
  expect((await send([sierraLeone(), sierraLeone(), sierraLeone(), sierraLeone()])).status).toBe(200);
  await page.getByRole("link", { name: "Dashboard" }).click();
  const held = page.getByRole("region", { name: "Held for review" });
  const group = held.getByRole("listitem", { name: "Held: +232761… (SL)" });
  await expect(group).toContainText("2 messages to +232761… (SL)");
  await page.screenshot({ path: "test-results/screens/held-for-review.png", fullPage: true });
  await group.getByRole("button", { name: "Release" }).click();
  await expect(held).toBeHidden();

  // The burst goes on: the next one is held too, and this time cancelled.
  expect((await send([sierraLeone()])).status).toBe(200);
  await expect(group).toContainText("1 message to +232761… (SL)", { timeout: 15_000 });
  await group.getByRole("button", { name: "Cancel" }).click();
  const dialog = page.getByRole("dialog", { name: "Cancel 1 message to +232761…?" });
  await dialog.getByRole("button", { name: "Cancel messages" }).click();
  await expect(held).toBeHidden();
  await page.goto(server.baseUrl + "/messages?status=cancelled");
  await expect(page.getByRole("row", { name: /\+232761\d+ Code 1234 sms 1 cancelled$/ })).toHaveCount(1);

  // Five messages so far, the cancelled one given back: four more make eight of ten, and the banner warns on every
  // page.
  expect((await send([home(), home(), home(), home()])).status).toBe(200);
  await page.goto(server.baseUrl + "/numbers");
  const banner = page.getByRole("status", { name: "Daily limit" });
  await expect(banner).toContainText("Today's messages are at 80 % of the daily limit (8 of 10 messages)");
  await page.getByRole("link", { name: "Dashboard" }).click();
  const limits = page.getByRole("region", { name: "Daily limits" });
  await expect(limits.getByRole("progressbar", { name: "Daily messages used" })).toHaveAttribute("aria-valuenow", "8");

  // Past the limit a send is refused whole; at it, the banner says so.
  const refused = await send([home(), home(), home()]);
  expect(refused.status).toBe(429);
  expect(((await refused.json()) as { status: string }).status).toBe("DailyLimitReached");
  expect((await send([home(), home()])).status).toBe(200);
  await page.reload();
  await expect(page.getByRole("alert", { name: "Daily limit" })).toContainText(
    "Today's message limit is reached (10 of 10 messages)",
  );
  await page.screenshot({ path: "test-results/screens/daily-limit-reached.png", fullPage: true });
});
