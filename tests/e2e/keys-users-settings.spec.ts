import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// The admin pages /keys, /users and /settings, clicked through as the demo admin (and a new agent in a second
// browser), with a screenshot of each state.

let server: RunningServer;
let demo: DemoCredentials;

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
});

test.afterAll(async () => {
  await server?.stop();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });

async function signIn(page: Page, email: string, password: string) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** POST /v3/messages with a key, as a customer's program would: the HTTP status. */
async function sendWith(key: string): Promise<number> {
  const res = await fetch(`${server.baseUrl}/v3/messages`, {
    method: "POST",
    headers: { apikey: key, "content-type": "application/json" },
    body: JSON.stringify({ accountId: demo.accountId, from: demo.numbers[0], to: "14155550123", body: "Key check" }),
  });
  return res.status;
}

/** On a narrow window the page itself must not scroll sideways (a wide table scrolls inside its panel). */
async function expectNoSideScroll(page: Page) {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > width + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${(el.getAttribute("class") ?? "").split(" ").slice(0, 4).join(".")}`);
    return { scrollWidth: document.documentElement.scrollWidth, width, wide };
  });
  expect(overflow.scrollWidth, `wider than the window: ${overflow.wide.join(", ")}`).toBeLessThanOrEqual(
    overflow.width,
  );
}

function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

test("API keys: created and shown once, used, revoked after a confirmation, then refused", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await page.goto(server.baseUrl + "/keys");
  await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
  const demoHint = `${demo.apiKey.slice(0, 7)}…${demo.apiKey.slice(-4)}`;
  await expect(page.getByRole("row").filter({ hasText: demoHint })).toContainText("active");
  await expect(page.getByRole("row").filter({ hasText: demoHint })).toContainText("never");

  // A key needs a name: the error sits beside the field, and nothing is created.
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("give the key a name")).toBeVisible();
  await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await shot(page, "keys-name-error");

  await page.getByLabel("Name", { exact: true }).fill("Billing system");
  await page.getByLabel("Expires").fill(inDays(30));
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Copy this key now. You will not see it again.")).toBeVisible();
  const secret = (await page.getByTestId("new-key-secret").textContent())!.trim();
  expect(secret).toMatch(/^pk_[0-9A-Za-z]{32}$/);
  await expect(page.getByRole("button", { name: "Copy key" })).toBeVisible();
  const hint = `${secret.slice(0, 7)}…${secret.slice(-4)}`;
  const row = page.getByRole("row").filter({ hasText: hint });
  await expect(row).toContainText("Billing system");
  await expect(row).toContainText("active");
  await shot(page, "keys-created");

  expect(await sendWith(secret)).toBe(200);

  await row.getByRole("button", { name: "Revoke" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(hint);
  await shot(page, "keys-revoke-confirm");
  await dialog.getByRole("button", { name: "Revoke key" }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText("revoked");
  await expect(row.getByRole("button", { name: "Revoke" })).toHaveCount(0);
  // Servers keep a key in their cache for API_KEY_CACHE_SECONDS (5 s by default).
  await expect.poll(() => sendWith(secret), { timeout: 8_000, intervals: [250] }).toBe(401);
  expect(await sendWith(demo.apiKey)).toBe(200);

  await page.reload();
  await expect(page.getByRole("row").filter({ hasText: hint })).toContainText("revoked");
  expect(await page.content()).not.toContain(secret);
  await expect(page.getByText("Copy this key now")).toHaveCount(0);
  await shot(page, "keys-list");

  // A long list comes in pages.
  for (let i = 1; i <= 21; i++) {
    const res = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/keys`, {
      method: "POST",
      headers: { apikey: demo.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ name: `Worker ${String(i).padStart(2, "0")}` }),
    });
    expect(res.status).toBe(200);
  }
  await page.reload();
  await expect(page.getByText("1–20 of 23 keys")).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("21–23 of 23 keys")).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: hint })).toContainText("revoked");
  await shot(page, "keys-page-2");
  await page.getByRole("button", { name: "Previous" }).click();
  await expect(page.getByRole("row").filter({ hasText: "Worker 21" })).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("row").filter({ hasText: "Worker 21" })).toBeVisible();
  await expectNoSideScroll(page);
  await shot(page, "keys-narrow-390");
});

test("Users: an agent is added with a password shown once, signs in, and is signed out when disabled", async ({
  page,
  browser,
}) => {
  await signIn(page, demo.email, demo.password);
  await page.goto(server.baseUrl + "/users");
  const users = page.getByRole("table", { name: "Users" });
  await expect(users.getByRole("row").filter({ hasText: demo.email })).toContainText("(you)");

  const agentEmail = "ana.agent@example.com";
  await page.getByLabel("Email", { exact: true }).fill("not an email");
  await page.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByText("must be an email address")).toBeVisible();

  await page.getByLabel("Email", { exact: true }).fill(agentEmail);
  await page.getByLabel("Name", { exact: true }).fill("Ana Agent");
  await page.getByLabel("Role", { exact: true }).selectOption("agent");
  await page.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByText("you will not see it again")).toBeVisible();
  const password = (await page.getByTestId("new-user-password").textContent())!.trim();
  expect(password.length).toBeGreaterThanOrEqual(20);
  const agentRow = users.getByRole("row").filter({ hasText: agentEmail });
  await expect(agentRow).toContainText("active");
  await expect(agentRow.getByLabel(`Role of ${agentEmail}`, { exact: true })).toHaveValue("agent");
  await shot(page, "users-created");

  // The agent, in a browser of their own: the sidebar has no admin pages.
  const agentContext = await browser.newContext();
  const agentPage = await agentContext.newPage();
  await signIn(agentPage, agentEmail, password);
  await expect(agentPage).toHaveURL(/\/conversations/);
  const nav = agentPage.getByRole("navigation", { name: "Portal" });
  await expect(nav.getByRole("link", { name: "Conversations" })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Messages" })).toBeVisible();
  for (const adminPage of ["Dashboard", "Numbers", "API keys", "Webhook", "Opt-outs", "Users", "Settings"])
    await expect(nav.getByRole("link", { name: adminPage, exact: true })).toHaveCount(0);
  await shot(agentPage, "agent-sidebar");

  // The only admin can neither step down nor disable themself; the agent can be disabled, after a confirmation.
  await users.getByLabel(`Role of ${demo.email}`, { exact: true }).selectOption("agent");
  await page.getByRole("button", { name: `Save role of ${demo.email}` }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Not changed" })).toContainText(
    `${demo.email} is the account's last active admin: make another user an admin first`,
  );
  await expect(users.getByLabel(`Role of ${demo.email}`, { exact: true })).toHaveValue("admin");
  await shot(page, "users-last-admin-error");
  await expect(page.getByRole("button", { name: `Disable ${demo.email}` })).toBeDisabled();
  await page.getByRole("button", { name: `Disable ${agentEmail}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Disable user" }).click();
  await expect(page.getByText(`${agentEmail} is disabled and signed out.`)).toBeVisible();
  await expect(agentRow).toContainText("disabled");

  // The agent's next navigation lands on the sign-in page.
  await nav.getByRole("link", { name: "Messages" }).click();
  await expect(agentPage).toHaveURL(/\/login/);
  await agentContext.close();

  // Activity: the sign-ins and the changes, filtered by kind.
  await page.reload();
  const activity = page.getByRole("table", { name: "Activity" });
  await expect(activity.getByRole("row").filter({ hasText: "User changed" })).toContainText(agentEmail);
  await expect(activity.getByRole("row").filter({ hasText: "User added" })).toContainText(demo.email);
  await expect(activity.getByText("Signed in").first()).toBeVisible();
  await shot(page, "users-activity");
  await page.getByLabel("Show").selectOption({ label: "Users" });
  await expect(activity.getByText("Signed in")).toHaveCount(0);
  await expect(activity.getByRole("row")).toHaveCount(3); // the header, user added, user changed
  await page.getByLabel("Show").selectOption({ label: "Settings" });
  await expect(page.getByText("Nothing under “Settings” yet")).toBeVisible();
  await shot(page, "users-activity-empty-filter");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByLabel("Show").selectOption({ label: "All activity" });
  await expect(page.getByText(/^1–\d+ of \d+ events$/)).toBeVisible();
  await expectNoSideScroll(page);
  await shot(page, "users-narrow-390");
});

test("Settings: a bad time zone is shown beside the field; a good save persists", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await page.goto(server.baseUrl + "/settings");
  await expect(page.getByTestId("account-id")).toHaveText(demo.accountId);
  await expect(page.getByRole("button", { name: "Copy account id" })).toBeVisible();
  const zone = page.getByLabel("Time zone");
  await expect(zone).toHaveValue("America/New_York");

  await zone.fill("Mars/Olympus_Mons");
  await page.getByLabel("Bulk share").fill("1.5");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(zone).toHaveAttribute("aria-invalid", "true");
  const zoneError = page.locator(`#${await zone.getAttribute("aria-describedby")}`);
  await expect(zoneError).toHaveText(/must be an IANA time zone/);
  await expect(page.getByText("must be at most 1")).toBeVisible();
  await shot(page, "settings-error");

  await page.getByLabel("Account name").fill("Demo Corp");
  await zone.fill("Europe/Paris");
  await page.getByLabel("Account rate limit (segments a second)").fill("4");
  await page.getByLabel("Bulk share").fill("0.25");
  await page.getByLabel("Bulk window start").fill("09:30");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();

  await page.reload();
  await expect(zone).toHaveValue("Europe/Paris");
  await expect(page.getByLabel("Account name")).toHaveValue("Demo Corp");
  await expect(page.getByLabel("Account rate limit (segments a second)")).toHaveValue("4");
  await expect(page.getByLabel("Bulk share")).toHaveValue("0.25");
  await expect(page.getByLabel("Bulk window start")).toHaveValue("09:30");
  await expect(page.getByRole("complementary")).toContainText("Demo Corp"); // the sidebar's account name
  await shot(page, "settings-saved");

  await page.goto(server.baseUrl + "/users");
  await page.getByLabel("Show").selectOption({ label: "Settings" });
  await expect(page.getByRole("table", { name: "Activity" })).toContainText(
    'timeZone: "America/New_York" → "Europe/Paris"',
  );
});
