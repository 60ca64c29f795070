import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { generate } from "otplib";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// Two-factor sign-in in Chromium: enrol on the Profile page with the key the page shows (the test is the
// authenticator app, with the same library), sign out, sign in again with a code; then require it for the account.

let server: RunningServer;
let demo: DemoCredentials;

test.beforeAll(async () => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
});

test.afterAll(async () => {
  await server?.stop();
});

/**
 * Console errors and CSP violations the page reports, for the test to fail on. The refusals this test provokes
 * (400 for a wrong code, 401 from the sign-in) are logged by Chromium as failed loads, and so is the browser's own
 * request for /favicon.ico, which the portal does not serve: those are expected.
 */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    const failedLoad = text.startsWith("Failed to load resource");
    if (failedLoad && (/status of 40[01]\b/.test(text) || message.location().url.endsWith("/favicon.ico"))) return;
    errors.push(text);
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

const codeOf = (secret: string, steps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });

async function freshStep() {
  const into = (Date.now() / 1000) % 30;
  if (into > 25) await new Promise((resolve) => setTimeout(resolve, (30.5 - into) * 1000));
}

async function signIn(page: Page, password: string) {
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(demo.email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("a user turns on two-factor on the Profile page and then signs in with a code", async ({ page }) => {
  const errors = watchErrors(page);
  await signIn(page, demo.password);
  // The first sign-in of a server just started (its threads still opening, on a machine busy with other servers) may
  // take longer than an assertion's usual 5 s: the portal must let the user in, not necessarily at once.
  await expect(page).not.toHaveURL(/\/login/, { timeout: 20_000 });
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();

  await page.goto(server.baseUrl + "/profile");
  const section = page.getByRole("region", { name: "Two-factor authentication" });
  await expect(section.getByText("Two-factor sign-in is off")).toBeVisible();
  await expect(section.getByTestId("two-factor-key")).toHaveCount(0);
  await section.getByRole("button", { name: "Set up two-factor" }).click();

  const qr = section.getByRole("img", { name: "QR code of your two-factor key" });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const key = (await section.getByTestId("two-factor-key").textContent())!.replace(/\s/g, "");
  expect(key).toMatch(/^[A-Z2-7]{32}$/);
  await page.screenshot({ path: "test-results/screens/two-factor-setup.png", fullPage: true });

  // A wrong code first: refused beside the field, still pending.
  await section.getByLabel("Authentication code").fill("000000");
  await section.getByRole("button", { name: "Turn on two-factor" }).click();
  await expect(section.getByRole("alert")).toContainText("authentication code is wrong");

  await freshStep();
  await section.getByLabel("Authentication code").fill(await codeOf(key));
  await section.getByRole("button", { name: "Turn on two-factor" }).click();
  const codes = section.getByTestId("recovery-codes").getByRole("listitem");
  await expect(codes).toHaveCount(10);
  const recoveryCode = (await codes.first().textContent())!;
  expect(recoveryCode).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
  await page.screenshot({ path: "test-results/screens/two-factor-recovery-codes.png", fullPage: true });
  await section.getByRole("button", { name: "I have saved these codes" }).click();
  await expect(section.getByTestId("recovery-codes")).toHaveCount(0);
  await expect(section.getByText("Two-factor sign-in is on")).toBeVisible();
  await expect(section.getByText("10 of 10 recovery codes left")).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();

  // The password alone now asks for the code.
  await signIn(page, demo.password);
  const codeBox = page.getByLabel("Authentication code");
  await expect(codeBox).toBeVisible();
  await expect(page.getByText("or one of your recovery codes")).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
  await page.screenshot({ path: "test-results/screens/two-factor-sign-in-code.png", fullPage: true });

  await codeBox.fill("123456");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong" })).toHaveText(
    "Wrong authentication code, or one used already. Enter the code your app shows now.",
  );
  // The code used to turn it on is spent: the app's next one signs in.
  await codeBox.fill(await codeOf(key, 1));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();

  // A recovery code works too, from the same box.
  await page.getByRole("button", { name: "Sign out" }).click();
  // Sign out lands on /login itself: wait for it, or the next goto races that navigation and is aborted.
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await signIn(page, demo.password);
  await page.getByLabel("Authentication code").fill(recoveryCode);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();

  // The admin requires it of everyone on the Settings page.
  await page.goto(server.baseUrl + "/settings");
  await page.getByRole("checkbox", { name: "Require two-factor sign-in" }).check();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Settings saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "Require two-factor sign-in" })).toBeChecked();

  // On the Profile page, turning it off is no longer offered.
  await page.goto(server.baseUrl + "/profile");
  await expect(page.getByRole("button", { name: "Turn off two-factor" })).toBeDisabled();
  await expect(page.getByText("9 of 10 recovery codes left")).toBeVisible();
  expect(errors).toEqual([]);
});
