import { expect, test } from "@playwright/test";
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

test("an admin signs in with the demo login and sees the account, its numbers, keys and messages", async ({ page }) => {
  await page.goto(server.baseUrl + "/");
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByRole("heading", { name: "Sign in to Parley" })).toBeVisible();

  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong" })).toHaveText("Wrong email or password.");

  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Demo" })).toBeVisible();
  await expect(page.getByText(`Account id ${demo.accountId}`)).toBeVisible();
  for (const number of demo.numbers)
    await expect(page.getByText(number.startsWith("+") ? number : `+${number}`)).toBeVisible();
  await expect(page.getByText(demo.apiKey.slice(0, 7) + "…" + demo.apiKey.slice(-4))).toBeVisible();
  await expect(page.getByRole("cell", { name: "Seen in the portal" })).toBeVisible();
  // The secret itself is never shown again.
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
