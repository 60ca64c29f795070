import type { Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";

// The Numbers page as an admin uses it: provision, fix a typo the form points at, see a number added through the API,
// relabel and re-pace one, release one with its queued message, and the empty page. The worker is off, so what is
// sent stays queued.

let server: RunningServer;
let demo: DemoCredentials;
let neighbour: DemoCredentials;
let page: Page;

const shot = (name: string) => page.screenshot({ path: `test-results/screens/numbers-${name}.png`, fullPage: true });

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(server.baseUrl + path, {
    method,
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  // A second account holds the next demo numbers: one of them is "taken" for the first.
  neighbour = await createDemoAccount(server.database.url);
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email", { exact: true }).fill(demo.email);
  await page.getByLabel("Password", { exact: true }).fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
});

test.afterAll(async () => {
  await page?.close();
  await server?.stop();
});

const rowOf = (number: string) => page.getByRole("row").filter({ hasText: number });

test("lists the account's numbers with label, rate, queue and date", async () => {
  await page.goto(server.baseUrl + "/numbers");
  await expect(page.getByRole("heading", { name: "Numbers", level: 1 })).toBeVisible();
  for (const number of demo.numbers) {
    const row = rowOf(number);
    await expect(row).toBeVisible();
    await expect(row).toContainText("demo");
    await expect(row).toContainText("1 msgs/s");
  }
  await expect(page.getByText(neighbour.numbers[0]!)).toHaveCount(0);
  await expect(page.getByText("1–2 of 2 numbers")).toBeVisible();
  await shot("list");
});

test("provisions a number through the form", async () => {
  await page.getByLabel("Number", { exact: true }).fill("+14155550142");
  await page.getByLabel("Label", { exact: true }).fill("Support line");
  await page.getByRole("button", { name: "Add number" }).click();
  await expect(page.getByText("+14155550142 is provisioned")).toBeVisible();
  await expect(rowOf("+14155550142")).toContainText("Support line");
  await expect(page.getByLabel("Number", { exact: true })).toHaveValue("");
});

test("shows what is wrong beside the field: an invalid number, and one another account holds", async () => {
  const field = page.getByLabel("Number", { exact: true });
  await field.fill("+1555");
  await page.getByRole("button", { name: "Add number" }).click();
  const invalid = page.getByText('"+1555" is not a valid telephone number');
  await expect(invalid).toBeVisible();
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAttribute("aria-describedby", (await invalid.getAttribute("id"))!);
  await shot("error");

  // Valid for the form's schema; refused by the server, and shown in the same place.
  await field.fill(neighbour.numbers[0]!);
  await page.getByRole("button", { name: "Add number" }).click();
  const taken = page.getByText("is provisioned to another account and cannot be provisioned to this one");
  await expect(taken).toBeVisible();
  await expect(field).toHaveAttribute("aria-describedby", (await taken.getAttribute("id"))!);
  await expect(page.getByText(neighbour.accountId)).toHaveCount(0);
});

test("shows a number provisioned through POST /v3/numbers after a reload", async () => {
  const res = await api("POST", "/v3/numbers", {
    accountId: demo.accountId,
    number: "14155550143",
    label: "From the API",
  });
  expect(res.status).toBe(200);
  expect(res.json.data.created).toBe(true);
  await page.reload();
  await expect(rowOf("+14155550143")).toContainText("From the API");
  await expect(page.getByText("1–4 of 4 numbers")).toBeVisible();
});

test("edits a label and a rate", async () => {
  await rowOf("+14155550142").getByRole("button", { name: "Edit +14155550142" }).click();
  const form = page.getByRole("form", { name: "Edit +14155550142" });
  await form.getByLabel("Label", { exact: true }).fill("Front desk");
  await form.getByLabel("Rate (msgs/s)", { exact: true }).fill("0");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByText("The rate must be more than 0 messages a second.")).toBeVisible();
  await shot("edit");
  await form.getByLabel("Rate (msgs/s)", { exact: true }).fill("2.5");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form).toHaveCount(0);
  await expect(rowOf("+14155550142")).toContainText("Front desk");
  await expect(rowOf("+14155550142")).toContainText("2.5 msgs/s");
});

test("releases a number after the confirmation, cancelling its queued message", async () => {
  const sent = await api("POST", "/v3/messages", {
    accountId: demo.accountId,
    from: "14155550142",
    to: "14155550123",
    body: "Still waiting to leave",
  });
  expect(sent.json.data.messageInfo[0].status).toBe("accepted");
  await page.reload();
  await expect(rowOf("+14155550142")).toContainText("1 queued");

  await page.getByRole("button", { name: "Release +14155550142" }).click();
  const dialog = page.getByRole("dialog", { name: "Release +14155550142?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("1 message is queued to be sent from it");
  await shot("release-dialog");
  // Cancel keeps it…
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(rowOf("+14155550142")).toBeVisible();
  // …confirming releases it.
  await page.getByRole("button", { name: "Release +14155550142" }).click();
  await dialog.getByRole("button", { name: "Release and cancel 1 message" }).click();
  await expect(page.getByText("+14155550142 is released. 1 queued message was cancelled.")).toBeVisible();
  await expect(rowOf("+14155550142")).toHaveCount(0);

  const refused = await api("POST", "/v3/messages", {
    accountId: demo.accountId,
    from: "14155550142",
    to: "14155550123",
    body: "Too late",
  });
  expect(refused.json.data.error).toBe("FromNotOwned");
});

test("fits a 390 px window", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  const row = rowOf("+14155550143");
  await expect(row).toBeVisible();
  await expect(row.getByRole("button", { name: "Edit +14155550143" })).toBeVisible();
  await expect(row.getByRole("button", { name: "Release +14155550143" })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await shot("narrow");
  await row.getByRole("button", { name: "Edit +14155550143" }).click();
  const form = page.getByRole("form", { name: "Edit +14155550143" });
  await expect(form.getByLabel("Label", { exact: true })).toHaveValue("From the API");
  await shot("narrow-edit");
  await form.getByRole("button", { name: "Cancel" }).click();
  await expect(form).toHaveCount(0);
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("pages a long list", async () => {
  for (let i = 0; i < 21; i++) {
    const res = await api("POST", "/v3/numbers", {
      accountId: demo.accountId,
      number: `1312555${String(1000 + i)}`,
      label: `Store ${i + 1}`,
    });
    expect(res.status).toBe(200);
  }
  await page.reload();
  await expect(page.getByText("1–20 of 24 numbers")).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "Store" })).toHaveCount(18);
  await shot("long-list");
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByText("21–24 of 24 numbers")).toBeVisible();
  await expect(rowOf("+14155550143")).toBeVisible();
  await page.getByRole("button", { name: "Previous" }).click();
  await expect(page.getByText("1–20 of 24 numbers")).toBeVisible();
});

test("says how to add a number when there is none", async () => {
  const listed = await api("GET", `/v3/numbers?accountId=${demo.accountId}&count=1000`);
  for (const { number } of listed.json.data.numbers as { number: string }[]) {
    const res = await api("DELETE", `/v3/numbers/${number}?accountId=${demo.accountId}`);
    expect(res.status).toBe(200);
  }
  await page.reload();
  await expect(page.getByText("No numbers yet")).toBeVisible();
  await expect(page.getByText("Add one above with its country code")).toBeVisible();
  await shot("empty");
});
