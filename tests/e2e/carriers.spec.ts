import type { Locator, Page } from "@playwright/test";
import { expect, test } from "../helpers/browser-test";
import sharp from "sharp";
import { startServer, type RunningServer } from "../helpers/server";
import { createDemoAccount, type DemoCredentials } from "../helpers/cli";
import { startFakeTwilio, type FakeTwilio } from "../helpers/fake-twilio";

// The Carriers page as an admin uses it, against a Twilio stand-in: add a Twilio connection and test it, route a
// number to it on the Numbers page, send through it, take its signed status and inbound callbacks at the addresses
// the page shows (and refuse a forged one), import and buy numbers at the provider, and the refusal to remove a
// connection numbers are routed to. The auth token never reaches a page.

let server: RunningServer;
let demo: DemoCredentials;
let fake: FakeTwilio;
let page: Page;

const NAME = "twilio-main";
const PHONE = "+14155550123";
const HELD = "+14155550177";
const FOR_SALE = "+12125550166";

/** E.164 with its "+", as the portal shows numbers. */
const plus = (number: string) => (number.startsWith("+") ? number : `+${number}`);
const shot = (name: string) => page.screenshot({ path: `test-results/screens/carriers-${name}.png`, fullPage: true });
const card = (): Locator => page.getByRole("article", { name: NAME });
const urlOf = async (label: "Inbound URL" | "Status URL") => card().getByRole("textbox", { name: label }).inputValue();

async function v3(method: string, path: string, body?: unknown) {
  const response = await fetch(server.baseUrl + path, {
    method,
    headers: { apikey: demo.apiKey, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

/** The page's own HTML as the server renders it for the signed-in admin, and what the browser shows now. */
async function expectNoToken() {
  const rendered = await (await page.request.get(server.baseUrl + "/carriers")).text();
  expect(rendered).toContain(NAME);
  expect(rendered).not.toContain(fake.authToken);
  expect(await page.content()).not.toContain(fake.authToken);
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  fake = await startFakeTwilio();
  fake.held.push({
    sid: "PN0123456789abcdef0123456789abcdef",
    phone_number: HELD,
    friendly_name: "Front desk",
    sms_url: "",
  });
  fake.forSale.push({ phone_number: FOR_SALE, locality: "New York", region: "NY" });
  // The Twilio stand-in is on loopback: its media may be fetched from there.
  server = await startServer({
    env: { PARLEY_WORKER: "true", SIMULATOR_RECEIPT_DELAY_MS: "200", MEDIA_ALLOW_PRIVATE: "true" },
  });
  demo = await createDemoAccount(server.database.url);
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
  await fake?.close();
});

test("adds a Twilio connection, listed with the addresses to give Twilio", async () => {
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Carriers" }).click();
  await expect(page.getByRole("heading", { name: "Carriers", level: 1 })).toBeVisible();
  await expect(page.getByText("No carrier connections yet")).toBeVisible();

  await page.getByRole("button", { name: "Add carrier" }).click();
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Twilio" });
  await page.getByLabel("Name", { exact: true }).fill(NAME);
  // Checked in the page before anything is sent: the required fields, beside each.
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Account SID is required.")).toBeVisible();
  await expect(page.getByLabel("Account SID", { exact: true })).toHaveAttribute("aria-invalid", "true");

  await page.getByLabel("Account SID", { exact: true }).fill(fake.accountSid);
  const token = page.getByLabel("Auth token", { exact: true });
  await expect(token).toHaveAttribute("type", "password");
  await token.fill(fake.authToken);
  await page.getByLabel("API base address", { exact: true }).fill(fake.url);
  await page.getByRole("button", { name: "Save" }).click();

  await expect(card()).toBeVisible();
  await expect(card()).toContainText("Twilio");
  await expect(card()).toContainText("0 numbers routed");
  await expect(card().getByText("unknown", { exact: true })).toBeVisible();
  const inbound = await urlOf("Inbound URL");
  const status = await urlOf("Status URL");
  expect(inbound).toMatch(new RegExp(`^${server.baseUrl}/carriers/cc_[A-Za-z0-9]{20}/inbound$`));
  expect(status).toBe(inbound.replace(/\/inbound$/, "/status"));
  await expect(card().getByRole("textbox", { name: "Inbound URL" })).toHaveAttribute("readonly", "");
  await expectNoToken();
  await shot("added");
});

test("a second connection with the same name is refused beside the Name field", async () => {
  await page.getByRole("button", { name: "Add carrier" }).click();
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Simulator (no real phones)" });
  await page.getByLabel("Name", { exact: true }).fill(NAME);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText(`A carrier connection named "${NAME}" exists already`)).toBeVisible();
  await expect(page.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("form", { name: "Add carrier" })).toHaveCount(0);
});

test("Test asks Twilio and says what it answered", async () => {
  await card().getByRole("button", { name: "Test" }).click();
  const answer = card().getByRole("status");
  await expect(answer).toHaveText('Twilio account "Clinic" is active, balance 12.34 USD.');
  await expect(answer).toHaveClass(/text-emerald-700/);
});

test("Edit shows the saved token only as a hint, and keeps it when left empty", async () => {
  await card().getByRole("button", { name: "Edit" }).click();
  const form = page.getByRole("form", { name: `Edit ${NAME}` });
  const token = form.getByLabel("Auth token", { exact: true });
  await expect(token).toHaveValue("");
  await expect(token).toHaveAttribute("placeholder", /^••••.{0,4} saved; leave empty to keep$/);
  await expect(form.getByLabel("Account SID", { exact: true })).toHaveValue(fake.accountSid);
  await expect(form.getByLabel("API base address", { exact: true })).toHaveValue(fake.url);
  await expectNoToken();
  await shot("edit");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form).toHaveCount(0);
  await card().getByRole("button", { name: "Test" }).click();
  await expect(card().getByRole("status")).toHaveText(/is active/);
});

test("the Numbers page routes a number to the connection with its Carrier picker", async () => {
  const number = plus(demo.numbers[0]!);
  await page.goto(server.baseUrl + "/numbers");
  const row = page.getByRole("row").filter({ hasText: number });
  await expect(row).toContainText("Default");
  await row.getByRole("button", { name: `Edit ${number}` }).click();
  const form = page.getByRole("form", { name: `Edit ${number}` });
  const picker = form.getByRole("combobox", { name: "Carrier" });
  await expect(picker).toHaveValue("");
  await expect(picker.getByRole("option")).toHaveText(["Default connection", NAME]);
  await picker.selectOption(NAME);
  await form.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("row").filter({ hasText: number })).toContainText(NAME);
  // The add form offers the same choice.
  await expect(page.getByRole("combobox", { name: "Carrier" }).getByRole("option")).toHaveText([
    "Default connection",
    NAME,
  ]);
  await shot("numbers");
});

test("a message sent through the API leaves through Twilio, and its status callback delivers it", async () => {
  await page.goto(server.baseUrl + "/carriers");
  const status = await urlOf("Status URL");
  const sent = await v3("POST", "/v3/messages", {
    accountId: demo.accountId,
    from: demo.numbers[0],
    to: PHONE.slice(1),
    body: "Your appointment is at 10:00",
  });
  expect(sent.status, JSON.stringify(sent.json)).toBe(200);
  const messageId = sent.json.data.messageInfo[0].messageId as string;
  await fake.waitForSends(1);
  const [twilioSend] = fake.sent;
  expect(twilioSend!.form.get("To")).toBe(PHONE);
  expect(twilioSend!.form.get("From")).toBe(plus(demo.numbers[0]!));
  expect(twilioSend!.form.get("StatusCallback")).toBe(status);

  const answer = await fake.callback(status, {
    AccountSid: fake.accountSid,
    MessageSid: twilioSend!.sid,
    MessageStatus: "delivered",
    From: plus(demo.numbers[0]!),
    To: PHONE,
  });
  expect(answer.status).toBeLessThan(300);
  await expect
    .poll(
      async () =>
        (await v3("GET", `/v3/messages?accountId=${demo.accountId}&messageId=${messageId}`)).json.data.results[0]
          ?.status,
    )
    .toBe("delivered");
});

test("an inbound MMS callback arrives in the conversation with its picture, and the reply leaves through Twilio; a forged one is refused", async () => {
  await page.goto(server.baseUrl + "/carriers");
  const inbound = await urlOf("Inbound URL");
  const params = {
    AccountSid: fake.accountSid,
    MessageSid: "MM00000000000000000000000000000001",
    From: PHONE,
    To: plus(demo.numbers[0]!),
    Body: "Here is the cat",
    NumMedia: "1",
    MediaUrl0: fake.offerMedia(
      await sharp({ create: { width: 64, height: 48, channels: 3, background: "#c08040" } })
        .jpeg()
        .toBuffer(),
      "image/jpeg",
    ),
  };
  const forged = await fake.callback(inbound, { ...params, Body: "Forged" }, { token: "not-the-auth-token" });
  expect(forged.status).toBe(403);
  const answer = await fake.callback(inbound, params);
  expect(answer.status).toBe(200);

  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Conversations" }).click();
  await page.getByRole("link", { name: new RegExp(`\\${PHONE}`) }).click();
  await expect(page.getByText("Here is the cat")).toBeVisible();
  // Parley's copy of the picture, fetched from Twilio with the account's credentials.
  const picture = page.getByRole("img", { name: /^Attachment 1 \(image\/jpeg, / });
  await expect(picture).toHaveAttribute("src", new RegExp(`^${server.baseUrl}/media/md_[A-Za-z0-9]{24}$`));
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64);
  await expect(page.getByText("Forged")).toHaveCount(0);
  await shot("conversation");

  // The reply from the thread leaves through Twilio too: the number is routed there, whoever sends.
  const before = fake.sent.length;
  await page.getByRole("textbox", { name: "Message" }).fill("Lovely cat! See you at 10:00.");
  await page.getByRole("button", { name: "Send" }).click();
  await fake.waitForSends(before + 1);
  const reply = fake.sent.at(-1)!;
  expect(reply.form.get("To")).toBe(PHONE);
  expect(reply.form.get("From")).toBe(plus(demo.numbers[0]!));
  expect(reply.form.get("Body")).toBe("Lovely cat! See you at 10:00.");
});

test("Numbers at provider lists Twilio's numbers, imports one and buys another", async () => {
  await page.goto(server.baseUrl + "/carriers");
  await card().getByRole("button", { name: "Numbers at provider" }).click();
  const held = card().getByRole("list", { name: "Numbers at provider" });
  const heldRow = held.getByRole("listitem").filter({ hasText: HELD });
  await expect(heldRow).toContainText("available");
  await expect(heldRow).toContainText("Front desk");
  await heldRow.getByRole("checkbox").check();
  await card().getByRole("button", { name: "Import selected" }).click();
  await expect(card().getByText(`Imported ${HELD}`)).toBeVisible();
  await expect(heldRow).toContainText("imported");
  await expect(heldRow.getByRole("checkbox")).toBeDisabled();
  // Twilio now posts the number's texts to the connection's inbound address.
  expect(fake.held.find((n) => n.phone_number === HELD)?.sms_url).toBe(await urlOf("Inbound URL"));

  await expect(card().getByRole("textbox", { name: "Country" })).toHaveValue("US");
  await card().getByRole("textbox", { name: "Area code" }).fill("212");
  await card().getByRole("button", { name: "Search" }).click();
  const offer = card().getByRole("list", { name: "Numbers for sale" }).getByRole("listitem");
  await expect(offer).toHaveCount(1);
  await expect(offer).toContainText(FOR_SALE);
  await expect(offer).toContainText("New York, NY");
  await offer.getByRole("button", { name: "Buy" }).click();
  await expect(card().getByText(`Bought ${FOR_SALE}`)).toBeVisible();
  await expect(card()).toContainText("3 numbers routed");
  await shot("provider-numbers");

  // A search the server cannot pass on is refused in its words.
  await card().getByRole("textbox", { name: "Area code" }).fill("abc");
  await card().getByRole("button", { name: "Search" }).click();
  await expect(card().getByText("the area code is 1 to 6 digits")).toBeVisible();

  await page.goto(server.baseUrl + "/numbers");
  for (const number of [HELD, FOR_SALE])
    await expect(page.getByRole("row").filter({ hasText: number })).toContainText(NAME);
});

test("Remove is refused while numbers are routed to the connection; Disable and Enable", async () => {
  await page.goto(server.baseUrl + "/carriers");
  await card().getByRole("button", { name: "Remove" }).click();
  const dialog = page.getByRole("dialog", { name: `Remove ${NAME}?` });
  await dialog.getByRole("button", { name: "Remove" }).click();
  await expect(dialog.getByRole("alert")).toHaveText(`3 numbers are routed to "${NAME}": route them elsewhere first`);
  await shot("remove-refused");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(card()).toBeVisible();

  await card().getByRole("button", { name: "Disable" }).click();
  await expect(card().getByText("disabled", { exact: true })).toBeVisible();
  await card().getByRole("button", { name: "Enable" }).click();
  await expect(card().getByRole("button", { name: "Disable" })).toBeVisible();
  await expect(card().getByText("disabled", { exact: true })).toHaveCount(0);
});

test("a connection with a wrong token: Test says Twilio's refusal in red, the numbers too; Remove removes it", async () => {
  const spare = () => page.getByRole("article", { name: "twilio-spare" });
  await page.getByRole("button", { name: "Add carrier" }).click();
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Twilio" });
  await page.getByLabel("Name", { exact: true }).fill("twilio-spare");
  await page.getByLabel("Account SID", { exact: true }).fill(fake.accountSid);
  await page.getByLabel("Auth token", { exact: true }).fill("0123456789abcdef-wrong");
  await page.getByLabel("API base address", { exact: true }).fill(fake.url);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(spare()).toBeVisible();

  await spare().getByRole("button", { name: "Test" }).click();
  const answer = spare().getByRole("status");
  await expect(answer).toHaveText(/Authenticate/);
  await expect(answer).toHaveClass(/text-red-700/);
  await spare().getByRole("button", { name: "Numbers at provider" }).click();
  await expect(spare().getByRole("alert")).toContainText("HTTP 401, Authenticate");
  await shot("refused");

  await spare().getByRole("button", { name: "Remove" }).click();
  const dialog = page.getByRole("dialog", { name: "Remove twilio-spare?" });
  await dialog.getByRole("button", { name: "Remove" }).click();
  await expect(page.getByText("twilio-spare is removed.")).toBeVisible();
  await expect(spare()).toHaveCount(0);
  await expect(card()).toBeVisible();
});

test("a 390 px wide window shows the connections without sideways scrolling", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(server.baseUrl + "/carriers");
  await expect(card().getByRole("textbox", { name: "Inbound URL" })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot("390");
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("the dashboard lists the connection with its state, beside the default connection still in use", async () => {
  await page.goto(server.baseUrl + "/");
  const carrier = page.getByRole("region", { name: "Carrier" });
  const connections = carrier.getByRole("list", { name: "Carrier connections" });
  await expect(connections.getByRole("listitem").filter({ hasText: NAME })).toContainText("3 numbers");
  // The demo's second number still uses the default connection: its workers are shown.
  await expect(carrier.getByText("Default connection")).toBeVisible();
  await shot("dashboard");
});
