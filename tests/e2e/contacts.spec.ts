import { expect as baseExpect, test } from "../helpers/browser-test";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, createUser, parley, type DemoCredentials } from "../helpers/cli";

// An agent imports contacts from a CSV file, then names a phone from its conversation's Contact panel.
let server: RunningServer;
let demo: DemoCredentials;
const agent = { email: "agent.contacts@example.com", password: "agent-contacts-password-1", name: "Agent C" };
const PHONE = "+14155550177";

test.describe.configure({ mode: "serial" });
// Four people share this machine's two cores: a page may take a few seconds.
const expect = baseExpect.configure({ timeout: 20_000 });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  server = await startServer();
  demo = await createDemoAccount(server.database.url);
  await createUser(server.database.url, { accountId: demo.accountId, ...agent, role: "agent" });
  await parley(
    ["inbound", "--from", PHONE, "--to", `+${demo.numbers[0]!.replace(/^\+/, "")}`, "--body", "Where is my order?"],
    server.database.url,
  );
});

test.afterAll(async () => {
  await server?.stop();
});

const CSV = [
  "name,phone,email,tags",
  "Dana Import,+14155550188,dana@example.com,vip;wholesale",
  "No Phone,,x@example.com,",
].join("\n");

test("an agent imports a CSV file, names a phone in its thread, and sees the name in the list", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(server.baseUrl + "/login");
  await page.getByLabel("Email").fill(agent.email);
  await page.getByLabel("Password").fill(agent.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login/);
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Contacts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Contacts" })).toBeVisible();
  // The conversation's phone is a contact before anyone named it.
  const list = page.getByRole("list", { name: "Contacts" });
  await expect(list).toContainText("+14155550177");

  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Import CSV" }).click();
  await (await chooser).setFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
  await expect(page.getByText("Imported 1 (1 new, 0 updated), 0 unchanged, 1 bad row.")).toBeVisible();
  await expect(page.getByRole("list", { name: "Bad rows" })).toContainText("Line 3: phone is missing");
  await expect(list).toContainText("Dana Import");
  await expect(list).toContainText("vip");
  await page.getByRole("searchbox", { name: "Search contacts" }).fill("wholesale");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(page.getByRole("link", { name: "Export CSV" })).toHaveAttribute("href", /\/contacts\/export$/);

  // The thread's Contact panel names the phone.
  await page.goto(server.baseUrl + "/conversations");
  await page.getByRole("link", { name: /\+14155550177/ }).click();
  const panel = page.getByRole("region", { name: "Contact" });
  await panel.getByRole("textbox", { name: "Name" }).fill("Eli Park");
  await panel.getByRole("textbox", { name: "Email" }).fill("eli@example.com");
  await panel.getByRole("textbox", { name: "Company" }).fill("Park Bakery");
  await panel.getByRole("textbox", { name: "Tags" }).fill("vip, bakery");
  await panel.getByRole("textbox", { name: "Note" }).fill("Prefers texts after 5 pm");
  await panel.getByRole("button", { name: "Save contact" }).click();
  await expect(panel.getByRole("status")).toHaveText("Saved");
  await expect(page.getByRole("heading", { level: 1, name: /Eli Park/ })).toBeVisible();

  // The list shows the name, the number beside it; the search finds the conversation by that name.
  await page.goto(server.baseUrl + "/conversations");
  const row = page.getByRole("link", { name: /Eli Park/ });
  await expect(row).toContainText("+14155550177");
  await page.getByRole("searchbox", { name: /^Search/ }).fill("eli park");
  await expect(page.getByRole("link", { name: /Eli Park/ })).toBeVisible();

  // After a reload the panel shows what was saved.
  await row.click();
  await expect(page.getByRole("region", { name: "Contact" }).getByRole("textbox", { name: "Company" })).toHaveValue(
    "Park Bakery",
  );
});
