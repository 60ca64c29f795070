import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, type DemoCredentials } from "../helpers/cli";
import { navItems } from "../../components/portal/nav-items";

// The portal shell as each role sees it: the sidebar lists what the role may open, and an admin page typed by an
// agent answers the 403 page inside the shell.

let server: RunningServer;
let demo: DemoCredentials;
const agentEmail = "agent@demo.parley";
const agentPassword = "agent password 1";

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  await createUser(server.database.url, {
    accountId: demo.accountId,
    email: agentEmail,
    password: agentPassword,
    role: "agent",
    name: "Avery Agent",
  });
});

test.afterAll(async () => {
  await server?.stop();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("an admin's sidebar lists every page, marks the open one and names the user", async ({ page }) => {
  await signIn(page, demo.email, demo.password);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Portal" });
  for (const item of navItems) await expect(nav.getByRole("link", { name: item.label, exact: true })).toBeVisible();
  await nav.getByRole("link", { name: "Settings", exact: true }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(nav.getByRole("link", { name: "Settings", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(page.getByText(`${demo.email} · admin`)).toBeVisible();
  await page.screenshot({ path: "test-results/screens/shell-admin.png", fullPage: true });
});

test("an agent sees only Conversations and Messages, and an admin URL answers the 403 page", async ({ page }) => {
  await signIn(page, agentEmail, agentPassword);
  await expect(page).toHaveURL(/\/conversations$/);
  const nav = page.getByRole("navigation", { name: "Portal" });
  await expect(nav.getByRole("link", { name: "Conversations", exact: true })).toBeVisible();
  await expect(nav.getByRole("link", { name: "Messages", exact: true })).toBeVisible();
  for (const item of navItems.filter((i) => i.adminOnly))
    await expect(nav.getByRole("link", { name: item.label, exact: true })).toHaveCount(0);

  const response = await page.goto(server.baseUrl + "/keys");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "This page is for the account's admins" })).toBeVisible();
  await expect(page.getByText(demo.apiKey.slice(0, 7))).toHaveCount(0);
  await page.screenshot({ path: "test-results/screens/forbidden-agent.png", fullPage: true });
  await page.getByRole("link", { name: "Go to Conversations" }).click();
  await expect(page).toHaveURL(/\/conversations$/);
});

test("on a narrow window the sidebar folds into a menu", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await signIn(page, demo.email, demo.password);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Portal" });
  await expect(nav).toBeHidden();
  await page.getByRole("button", { name: "Menu" }).click();
  await expect(nav.getByRole("link", { name: "Numbers", exact: true })).toBeVisible();
  await page.screenshot({ path: "test-results/screens/shell-narrow-menu.png", fullPage: true });
  await nav.getByRole("link", { name: "Numbers", exact: true }).click();
  await expect(page).toHaveURL(/\/numbers$/);
  await expect(nav).toBeHidden();
});
