import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

let server: RunningServer;
let demo: DemoCredentials;

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  const sent = await fetch(`${server.baseUrl}/v3/messages`, {
    method: "POST",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify({
      accountId: demo.accountId,
      from: demo.numbers[0],
      to: "14155550123",
      body: "Seen in the portal",
    }),
  });
  expect(sent.status).toBe(200);
});

test.afterAll(async () => {
  await server?.stop();
});

test("an admin signs in with the demo login and lands on the dashboard", async ({ page }) => {
  await page.goto(server.baseUrl + "/");
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByRole("heading", { name: "Sign in to Parley" })).toBeVisible();

  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong" })).toHaveText("Wrong email or password.");

  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await expect(page.getByText(`Account id ${demo.accountId}`)).toBeVisible();
  // The message sent above waits in its number's queue (this server runs no worker), and today's figures count it.
  await expect(page.getByRole("link", { name: "queued: 1 today" })).toBeVisible();
  const queues = page.getByRole("region", { name: "Queues" });
  for (const number of demo.numbers)
    await expect(queues.getByText(number.startsWith("+") ? number : `+${number}`)).toBeVisible();
  await expect(page.getByText("No worker running")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/dashboard-no-worker.png", fullPage: true });
  // The key's secret is never shown again.
  await expect(page.getByText(demo.apiKey)).toHaveCount(0);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto(server.baseUrl + "/");
  await expect(page).toHaveURL(/\/login/);
});

test("the API reference page documents every error the API can answer", async ({ page }) => {
  await page.goto(server.baseUrl + "/docs");
  for (const code of ["MissingAccountId", "InvalidNumber", "ResourceNotAllowed", "Unauthorized", "SystemFailure"]) {
    await expect(page.locator(`#error-${code}`)).toBeVisible();
  }
});
