import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// A campaign to 500 contacts as an admin runs it: contacts imported from a CSV file with a tag, three of them opted
// out; the campaign started from the portal; its progress page moving live; pause, resume, cancel.
let server: RunningServer;
let demo: DemoCredentials;

test.describe.configure({ mode: "serial" });

async function admin(path: string, method: string, body: unknown) {
  const res = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}${path}`, {
    method,
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(200);
  return res.json();
}

const phone = (i: number) => `1312${700 + Math.floor(i / 100)}${1000 + (i % 100)}`;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startServer({ env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "200" } });
  demo = await createDemoAccount(server.database.url);
  // The bulk window always open (equal times), whatever the hour in Chicago when the test runs; a faster account.
  await admin("", "PUT", { bulkWindowStart: "00:00", bulkWindowEnd: "00:00", rateLimitPerSecond: 20 });
  const rows = Array.from({ length: 500 }, (_, i) => `Guest ${i},+${phone(i)},,vip`);
  await admin("/contacts/import", "POST", { csv: ["name,phone,email,tags", ...rows].join("\n") });
  for (const i of [7, 8, 9]) await admin("/opt/numbers", "POST", { number: phone(i), action: "out" });
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

test("an admin sends a campaign to 500 contacts, watches it live, pauses, resumes and cancels it", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.getByRole("link", { name: "Campaigns" }).click();
  await expect(page.getByRole("heading", { name: "No campaigns yet" })).toBeVisible();
  await page.getByRole("link", { name: "New campaign" }).click();

  await page.getByLabel("Name", { exact: true }).fill("Spring sale");
  // Both of the account's numbers share the phones.
  for (const box of await page.getByRole("group", { name: "Send from" }).getByRole("checkbox").all()) await box.check();
  await page.getByLabel("Tag", { exact: true }).fill("VIP");
  await page
    .getByLabel("Message")
    .fill("Hi {{contact.first_name}}, the spring sale starts today. Reply STOP to opt out");
  await expect(page.getByText(/1 segment · GSM-7/)).toBeVisible();
  await page.getByRole("button", { name: "Start campaign" }).click();

  await expect(page.getByRole("heading", { name: "Spring sale" })).toBeVisible({ timeout: 30_000 });
  const bar = page.getByRole("progressbar", { name: "Campaign progress" });
  await expect(bar).toHaveAttribute("aria-valuemax", "500");
  await expect(page.locator("[data-count=optedOut]")).toHaveText("3");
  // Live: messages are delivered while the page is open, without a reload.
  await expect
    .poll(async () => Number(await page.locator("[data-count=delivered]").textContent()), { timeout: 20_000 })
    .toBeGreaterThan(2);
  await page.screenshot({ path: "test-results/screens/campaign-running.png", fullPage: true });

  await page.getByRole("button", { name: "Pause" }).click();
  await expect(page.getByText("paused", { exact: true })).toBeVisible();
  const held = Number(await page.locator("[data-count=scheduled]").textContent());
  expect(held).toBeGreaterThan(400);
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByText("running", { exact: true })).toBeVisible();
  await expect(page.locator("[data-count=scheduled]")).toHaveText("0");

  await page.getByRole("button", { name: "Cancel campaign" }).click();
  await page
    .getByRole("dialog", { name: "Cancel this campaign?" })
    .getByRole("button", { name: "Cancel campaign" })
    .click();
  await expect(page.getByText("cancelled", { exact: true })).toBeVisible();
  await expect(bar).toHaveAttribute("aria-valuenow", "500");
  expect(Number(await page.locator("[data-count=cancelled]").textContent())).toBeGreaterThan(400);
  await expect(page.getByRole("button", { name: "Pause" })).toHaveCount(0);
  await page.screenshot({ path: "test-results/screens/campaign-cancelled.png", fullPage: true });

  await page.getByRole("link", { name: "← Campaigns" }).click();
  await expect(page.getByRole("list", { name: "Campaigns" }).getByRole("link", { name: "Spring sale" })).toBeVisible();
});
