import type { Browser, BrowserContext, Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// Ending portal sessions from the browser: an admin revokes one of an agent's sessions on the Users page (or signs
// the agent out everywhere) and that browser's next click lands on the sign-in page; the agent changes their password
// on the Profile page and their other browser is signed out; a copy of the cookie is worthless after "Sign out".

const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

let server: RunningServer;
let demo: DemoCredentials;
let agent: { email: string; password: string };
const contexts: BrowserContext[] = [];

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  const created = await fetch(`${server.baseUrl}/api/admin/accounts/${demo.accountId}/users`, {
    method: "POST",
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ email: "ana.agent@example.com", name: "Ana Agent", role: "agent" }),
  });
  expect(created.status).toBe(200);
  const { data } = (await created.json()) as { data: { password: string } };
  agent = { email: "ana.agent@example.com", password: data.password };
});

test.afterAll(async () => {
  for (const context of contexts) await context.close();
  await server?.stop();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });

async function browserOf(browser: Browser, options: { userAgent?: string } = {}): Promise<Page> {
  const context = await browser.newContext(options);
  contexts.push(context);
  return context.newPage();
}

async function signIn(page: Page, email: string, password: string) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/**
 * The browser's next click in the sidebar (to another page): the page opens (still signed in), or the sign-in page
 * does. The address changes before a refused page's redirect arrives, so it is the heading that tells.
 */
async function nextClick(page: Page): Promise<"signed in" | "sign-in page"> {
  const target = page.url().includes("/messages") ? "Conversations" : "Messages";
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: target, exact: true }).click();
  const heading = page.getByRole("heading", { level: 1, name: new RegExp(`^(${target}|Sign in to Parley)$`) });
  await expect(heading).toBeVisible();
  if ((await heading.textContent()) === "Sign in to Parley") {
    await expect(page).toHaveURL(/\/login/);
    return "sign-in page";
  }
  await expect(page).toHaveURL(new RegExp(`/${target.toLowerCase()}`));
  return "signed in";
}

test("an admin revokes one of an agent's sessions, then signs the agent out everywhere", async ({ page, browser }) => {
  const laptop = await browserOf(browser);
  const other = await browserOf(browser, { userAgent: firefox });
  await signIn(laptop, agent.email, agent.password);
  await signIn(other, agent.email, agent.password);

  await signIn(page, demo.email, demo.password);
  await page.goto(server.baseUrl + "/users");
  const sessions = page.getByRole("group", { name: `Sessions of ${agent.email}` });
  await expect(sessions).toContainText("2 active sessions");
  await expect(sessions).toContainText("Firefox 133 on Linux");
  await expect(sessions).toContainText(/Chrome \d+ on Linux/);
  await expect(sessions.getByText(/Last seen/)).toHaveCount(2);
  await expect(page.getByRole("group", { name: `Sessions of ${demo.email}` })).toContainText("This session");
  await shot(page, "users-sessions");

  await sessions.getByRole("button", { name: `Revoke Firefox 133 on Linux session of ${agent.email}` }).click();
  await expect(sessions).toContainText("1 active session");
  await expect(sessions).not.toContainText("Firefox");
  expect(await nextClick(other)).toBe("sign-in page");
  expect(await nextClick(laptop)).toBe("signed in");

  await sessions.getByRole("button", { name: "Sign out everywhere" }).click();
  await expect(sessions).toHaveCount(0);
  expect(await nextClick(laptop)).toBe("sign-in page");

  const activity = page.getByRole("table", { name: "Activity" });
  await expect(activity.getByRole("row").filter({ hasText: "Signed out everywhere" })).toContainText(agent.email);
  await expect(activity.getByRole("row").filter({ hasText: "Session revoked" })).toContainText(agent.email);
});

test("an agent changes their password on the Profile page; their other browser is signed out", async ({ browser }) => {
  const desk = await browserOf(browser);
  const phone = await browserOf(browser, { userAgent: firefox });
  await signIn(desk, agent.email, agent.password);
  await signIn(phone, agent.email, agent.password);

  await desk.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Profile" }).click();
  await expect(desk.getByRole("heading", { name: "Profile" })).toBeVisible();
  const yours = desk.getByRole("list", { name: "Your sessions" });
  await expect(yours.getByRole("listitem")).toHaveCount(2);
  await expect(yours.getByRole("listitem").filter({ hasText: "This session" })).toContainText(/Chrome \d+ on Linux/);
  await expect(yours.getByRole("listitem").filter({ hasText: "Firefox 133 on Linux" })).toContainText("Last seen");
  await shot(desk, "profile-two-sessions");

  // Refusals beside their fields: a short new password (checked in the browser), a wrong current one (the server).
  await desk.getByLabel("Current password").fill(agent.password);
  await desk.getByLabel("New password", { exact: true }).fill("too short");
  await desk.getByRole("button", { name: "Change password" }).click();
  await expect(desk.getByText("Needs at least 12 characters")).toBeVisible();
  // The new password typed twice, differently: refused in the browser, nothing sent.
  await desk.getByLabel("New password", { exact: true }).fill("four words make a passphrase");
  await desk.getByLabel("Confirm new password").fill("four words make a passfrase");
  await desk.getByRole("button", { name: "Change password" }).click();
  await expect(desk.getByText("The two new passwords differ")).toBeVisible();
  expect(await nextClick(phone)).toBe("signed in");
  await desk.getByLabel("Confirm new password").fill("four words make a passphrase");
  await desk.getByLabel("Current password").fill("not my password");
  await desk.getByRole("button", { name: "Change password" }).click();
  await expect(desk.getByText("Is not your current password")).toBeVisible();
  expect(await nextClick(phone)).toBe("signed in");

  await desk.getByLabel("Current password").fill(agent.password);
  await desk.getByRole("button", { name: "Change password" }).click();
  await expect(desk.getByRole("status").filter({ hasText: "Your password is changed." })).toContainText(
    "Your 1 other session was signed out.",
  );
  await expect(yours.getByRole("listitem")).toHaveCount(1);
  await shot(desk, "profile");

  expect(await nextClick(phone)).toBe("sign-in page");
  expect(await nextClick(desk)).toBe("signed in");
  agent.password = "four words make a passphrase";
  await signIn(phone, agent.email, agent.password);
});

test("a copy of the session cookie is refused after Sign out", async ({ browser }) => {
  const original = await browserOf(browser);
  await signIn(original, agent.email, agent.password);
  const copy = await browserOf(browser);
  await copy.context().addCookies(await original.context().cookies());
  await copy.goto(server.baseUrl + "/conversations");
  await expect(copy.getByRole("heading", { name: "Conversations" })).toBeVisible();

  await original.getByRole("button", { name: "Sign out" }).click();
  await expect(original).toHaveURL(/\/login/);
  // The copy's live connection is closed at once (the conversation view may send it to the sign-in page by itself,
  // which can interrupt the navigation below); its next request, whatever it is, lands there.
  await copy.goto(server.baseUrl + "/messages").catch((error: unknown) => {
    if (!/interrupted by another navigation/.test(String(error))) throw error;
  });
  await expect(copy.getByRole("heading", { level: 1, name: "Sign in to Parley" })).toBeVisible();
});
