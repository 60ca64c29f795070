import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../helpers/server";
import { call, createTestAccount, releaseFactories, type TestAccount } from "../helpers/factories";
import { errorCodes } from "../../lib/api/error-codes";
import { listQuerySchema } from "../../lib/messaging/list-schema";
import { randomNumber } from "../helpers/factories";

// The OpenAPI document and the /docs page, as a client sees them, and the document checked against the server's
// real answers. A PUBLIC_URL proves both use the configured address rather than the listening one.
const PUBLIC_URL = "http://parley.test:8080";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

// ajv 8 validates JSON Schema 2020-12, the dialect of OpenAPI 3.1.
type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };
type Ajv = Ajv2020;

let server: RunningServer;
let account: TestAccount;
let doc: Json;

beforeAll(async () => {
  server = await startServer({ env: { PUBLIC_URL } });
  account = await createTestAccount(server);
  const res = await call(server, "GET", "/v3/openapi.json");
  expect(res.status).toBe(200);
  doc = res.json;
});

afterAll(async () => {
  await releaseFactories();
  await server?.stop();
});

function schemaNamed(name: string): Json {
  const schema = doc.components?.schemas?.[name];
  expect(schema, `components.schemas.${name}`).toBeDefined();
  return schema;
}

function walk(value: unknown, visit: (node: Json, path: string) => void, path = "#"): void {
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, visit, `${path}/${i}`));
  else if (value && typeof value === "object") {
    visit(value as Json, path);
    for (const [k, v] of Object.entries(value)) walk(v, visit, `${path}/${k}`);
  }
}

function pointer(ref: string): unknown {
  return ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<any>((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

describe("GET /v3/openapi.json", () => {
  it("is an OpenAPI 3.1 document of the v3 API, served as JSON without credentials", async () => {
    const res = await call(server, "GET", "/v3/openapi.json");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.servers).toEqual([expect.objectContaining({ url: `${PUBLIC_URL}/v3` })]);
  });

  it("has the four operations on /messages and the SDR path", () => {
    expect(Object.keys(doc.paths["/messages"]).sort()).toEqual(["delete", "get", "post", "put"]);
    expect(doc.paths["/sdrs/{accountId}/{messageId}"]?.get).toBeDefined();
    const ids = Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    const sdr = doc.paths["/sdrs/{accountId}/{messageId}"].get;
    const pathParams = sdr.parameters.filter((p: Json) => p.in === "path");
    expect(pathParams.map((p: Json) => [p.name, p.required])).toEqual([
      ["accountId", true],
      ["messageId", true],
    ]);
  });

  it("has the numbers operations: list and provision on /numbers, release on /numbers/{number}", () => {
    expect(Object.keys(doc.paths["/numbers"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/numbers/{number}"])).toEqual(["delete"]);
    const release = doc.paths["/numbers/{number}"].delete;
    expect(release.parameters.map((p: Json) => [p.in, p.name, p.required])).toEqual([
      ["path", "number", true],
      ["query", "accountId", true],
    ]);
    expect(Object.keys(release.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500"]);
    // The per-key rate limit's answer says how long to wait.
    expect(Object.keys(release.responses["429"].headers)).toEqual(["x-request-id", "retry-after"]);
    const listParams = doc.paths["/numbers"].get.parameters.map((p: Json) => p.name);
    expect(listParams).toEqual(["accountId", "start", "count"]);
    const provision = schemaNamed("ProvisionNumberRequest");
    expect(Object.keys(provision.properties)).toEqual(["accountId", "number", "label", "ratePerSecond", "carrier"]);
    expect(provision.required).toEqual(["accountId", "number"]);
    expect(provision.properties.label.maxLength).toBe(100);
    expect(provision.properties.ratePerSecond).toMatchObject({ exclusiveMinimum: 0, maximum: 100 });
  });

  it("declares the apikey header and HTTP Basic, and PUT/DELETE need neither", () => {
    expect(doc.components.securitySchemes.apikey).toMatchObject({ type: "apiKey", in: "header", name: "apikey" });
    expect(doc.components.securitySchemes.basic).toMatchObject({ type: "http", scheme: "basic" });
    expect(doc.security).toEqual([{ apikey: [] }, { basic: [] }]);
    expect(doc.paths["/messages"].put.security).toEqual([]);
    expect(doc.paths["/messages"].delete.security).toEqual([]);
  });

  it("describes the send request with every field of the seed's table and the decided limits", () => {
    const post = doc.paths["/messages"].post;
    expect(post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SendRequest" });
    const send = schemaNamed("SendRequest");
    const seedFields = [
      "accountId",
      "from",
      "to",
      "toArray",
      "body",
      "media",
      "conversational",
      "bulk",
      "optLogic",
      "referenceId",
      "userId",
      "userType",
    ];
    // The seed's fields, then Parley's optional ones (sending later, validity, smart encoding).
    expect(Object.keys(send.properties)).toEqual([...seedFields, "sendAt", "validitySeconds", "smartEncoding"]);
    expect(send.properties.validitySeconds).toMatchObject({ type: "integer", minimum: 30, maximum: 129600 });
    expect(send.properties.sendAt).toMatchObject({ type: "string", example: "2026-12-01T09:30:00+01:00" });
    expect(send.required).toEqual(["accountId", "from"]);
    expect(send.properties.referenceId.pattern).toBe("^[A-Za-z0-9]{1,40}$");
    expect(send.properties.toArray).toMatchObject({ type: "array", minItems: 1, maxItems: 1000 });
    expect(send.properties.body.maxLength).toBe(1600);
    expect(send.properties.media.maxItems).toBe(10);
    expect(send.properties.userId.maxLength).toBe(100);
    expect(send.properties.conversational.default).toBe(false);
    expect(send.properties.optLogic.default).toBe(false);
    // The documented UUID pattern (JSON Schema has no flags) accepts what the handler accepts, in either case.
    const uuid = new RegExp(send.properties.accountId.pattern);
    expect(uuid.test(account.accountId)).toBe(true);
    expect(uuid.test(account.accountId.toUpperCase())).toBe(true);
    expect(uuid.test("not-a-uuid")).toBe(false);
    const idempotency = post.parameters.find((p: Json) => p.in === "header" && p.name === "Idempotency-Key");
    expect(idempotency).toMatchObject({ required: false, schema: { type: "string", maxLength: 255 } });
  });

  it("documents every listing parameter with its default", () => {
    const params: Json[] = doc.paths["/messages"].get.parameters;
    expect(params.every((p) => p.in === "query")).toBe(true);
    expect(params.map((p) => p.name)).toEqual(Object.keys(listQuerySchema.shape));
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(byName.accountId.required).toBe(true);
    expect(byName.start.schema).toMatchObject({ type: "integer", minimum: 0, default: 0 });
    expect(byName.count.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 1000, default: 50 });
    expect(byName.sortBy.schema).toMatchObject({ default: "timestamp" });
    expect(byName.sortBy.schema.enum).toEqual([
      "timestamp",
      "from",
      "to",
      "status",
      "direction",
      "messageType",
      "numSegments",
    ]);
    expect(byName.sortDir.schema).toMatchObject({ enum: ["asc", "desc"], default: "desc" });
  });

  it("documents every error code with its statusCode, statusMessage, docs link and when it happens", () => {
    const documented: Json[] = doc["x-error-codes"];
    expect(documented.map((e) => e.status)).toEqual(Object.keys(errorCodes));
    for (const entry of documented) {
      const code = entry.status as keyof typeof errorCodes;
      expect(entry).toMatchObject({
        statusCode: errorCodes[code].statusCode,
        statusMessage: errorCodes[code].statusMessage,
      });
      expect(entry.statusUri).toBe(`${PUBLIC_URL}/docs#error-${code}`);
      expect(entry.when, `a description of when ${code} happens (lib/api/openapi/errors.ts)`).not.toBe(
        "See statusMessage.",
      );
    }
    expect(schemaNamed("ErrorEnvelope").properties.status.enum).toEqual(Object.keys(errorCodes));
    // Each operation's error responses are keyed by the codes' HTTP statuses, with an example per code.
    walk(doc.paths, (node, path) => {
      if (!/\/responses\/[45]\d\d$/.test(path)) return;
      const status = Number(path.split("/").pop());
      for (const [code, example] of Object.entries<Json>(node.content["application/json"].examples)) {
        expect(errorCodes[code as keyof typeof errorCodes]?.statusCode, `${path} ${code}`).toBe(status);
        expect(example.value).toMatchObject({ status: code, statusCode: status });
      }
    });
  });

  it("is well formed: every $ref resolves and every path and response is described", () => {
    walk(doc, (node, path) => {
      if (typeof node.$ref === "string") expect(pointer(node.$ref), `${path}: ${node.$ref}`).toBeDefined();
    });
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const op of Object.values<Json>(item)) {
        expect(op.summary, `${path} summary`).toBeTruthy();
        const declared = (op.parameters ?? []).filter((p: Json) => p.in === "path").map((p: Json) => p.name);
        expect(declared).toEqual(templated);
        for (const response of Object.values<Json>(op.responses)) expect(response.description).toBeTruthy();
      }
    }
  });

  it("has valid JSON Schema 2020-12 schemas, and every example matches its schema", () => {
    const ajv = newAjv();
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) {
      expect(ajv.validateSchema(schema), `${name}: ${JSON.stringify(ajv.errors)}`).toBe(true);
    }
    let checked = 0;
    walk(doc.paths, (node, path) => {
      const media = node.content?.["application/json"];
      if (!media?.schema) return;
      const validate = validatorFor(ajv, media.schema);
      const examples = [media.example, ...Object.values<Json>(media.examples ?? {}).map((e) => e.value)].filter(
        (e) => e !== undefined,
      );
      for (const example of examples) {
        expect(validate(example), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
        checked++;
      }
    });
    expect(checked).toBeGreaterThan(20);
  });

  it("matches what the server really answers", async () => {
    const ajv = newAjv();
    const schema = (name: string) => validatorFor(ajv, { $ref: `#/components/schemas/${name}` });
    const expectValid = (name: string, body: unknown) => {
      const validate = schema(name);
      expect(validate(body), `${name}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(body)}`).toBe(true);
    };

    const sent = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: {
        accountId: account.accountId,
        from: account.numbers[0],
        toArray: ["14155550123", "12"],
        body: "Schema check",
        referenceId: "schema1",
      },
    });
    expect(sent.status).toBe(200);
    expectValid("SendResponse", sent.json);
    const messageId = sent.json.data.messageInfo[0].messageId;

    const notOwned = await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: { accountId: account.accountId, from: "14155550199", to: "14155550123", body: "x" },
    });
    expectValid("SendResponse", notOwned.json);

    const listed = await call(server, "GET", `/v3/messages?accountId=${account.accountId}&count=5&sortDir=asc`, {
      headers: account.headers,
    });
    expect(listed.status).toBe(200);
    expectValid("ListResponse", listed.json);

    const sdrs = await call(server, "GET", `/v3/sdrs/${account.accountId}/${messageId}`, { headers: account.headers });
    expect(sdrs.status).toBe(200);
    expectValid("SdrResponse", sdrs.json);

    const unknown = await call(server, "GET", `/v3/sdrs/${account.accountId}/00000000-0000-4000-8000-000000000000`, {
      headers: account.headers,
    });
    expect(unknown.status).toBe(404);
    expectValid("SdrNotFound", unknown.json);

    const number = randomNumber();
    const provisioned = await call(server, "POST", "/v3/numbers", {
      headers: account.headers,
      body: { accountId: account.accountId, number, label: "Schema check" },
    });
    expect(provisioned.status).toBe(200);
    expectValid("NumberProvisionResponse", provisioned.json);
    const numbers = await call(server, "GET", `/v3/numbers?accountId=${account.accountId}&count=2`, {
      headers: account.headers,
    });
    expect(numbers.status).toBe(200);
    expectValid("NumbersListResponse", numbers.json);
    await call(server, "POST", "/v3/messages", {
      headers: account.headers,
      body: { accountId: account.accountId, from: number, to: "14155550123", body: "waiting" },
    });
    const released = await call(server, "DELETE", `/v3/numbers/${number}?accountId=${account.accountId}`, {
      headers: account.headers,
    });
    expect(released.json.data.cancelledMessages).toBe(1);
    expect(released.status).toBe(200);
    expectValid("NumberReleaseResponse", released.json);
    const notHeld = await call(server, "DELETE", `/v3/numbers/${number}?accountId=${account.accountId}`, {
      headers: account.headers,
    });
    expect(notHeld.json.status).toBe("NotFound");
    expectValid("ErrorEnvelope", notHeld.json);

    const errors = [
      await call(server, "POST", "/v3/messages", {
        headers: account.headers,
        body: { accountId: account.accountId, to: "14155550123", body: "x" },
      }),
      await call(server, "POST", "/v3/messages", {
        headers: account.headers,
        body: { accountId: account.accountId, from: account.numbers[0], to: "1", body: "x", referenceId: "no spaces" },
      }),
      await call(server, "GET", `/v3/messages?accountId=${account.accountId}`),
      await call(server, "PUT", "/v3/messages"),
      await call(server, "GET", "/v3/nothing-here"),
    ];
    expect(errors.map((r) => r.json.status)).toEqual([
      "MissingFrom",
      "InvalidRequest",
      "Unauthorized",
      "ResourceNotAllowed",
      "UnknownResource",
    ]);
    for (const res of errors) {
      expectValid("ErrorEnvelope", res.json);
      expect(res.json.statusUri).toBe(`${PUBLIC_URL}/docs#error-${res.json.status}`);
    }
  });
});

function newAjv(): Ajv {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat("uri", (value) => URL.canParse(value));
  // The document itself is the schema resource, so "#/components/schemas/…" references resolve inside it.
  ajv.addSchema(doc, "openapi");
  return ajv;
}

function validatorFor(ajv: Ajv, schema: Json): Validator {
  const ref = typeof schema.$ref === "string" ? schema.$ref : null;
  const validate = ref ? ajv.getSchema(`openapi${ref}`) : undefined;
  if (!validate) throw new Error(`no validator for ${JSON.stringify(schema)}`);
  return validate;
}

function decodeEntities(html: string): string {
  return html
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

describe("GET /docs", () => {
  let html = "";
  beforeAll(async () => {
    const res = await call(server, "GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    html = res.text;
  });

  it("has an entry for every error code, the target of the responses' statusUri", () => {
    expect(html).toContain('id="error-MissingFrom"');
    for (const code of Object.keys(errorCodes)) expect(html).toContain(`id="error-${code}"`);
  });

  it("shows a curl example for POST /v3/messages with the server's public URL and placeholders", () => {
    const text = decodeEntities(html);
    expect(text).toContain(`curl -sS -X POST "${PUBLIC_URL}/v3/messages"`);
    expect(text).toContain('-H "apikey: $PARLEY_KEY"');
    expect(text).toContain('"accountId": "$ACCOUNT_ID"');
    expect(text).toContain(`curl -sS "${PUBLIC_URL}/v3/sdrs/$ACCOUNT_ID/$MESSAGE_ID"`);
    expect(text).toContain(`curl -sS -X POST "${PUBLIC_URL}/v3/numbers"`);
    expect(text).toContain(`curl -sS -X DELETE "${PUBLIC_URL}/v3/numbers/14155550100?accountId=$ACCOUNT_ID"`);
  });

  it("renders the fields, defaults and statuses from the document and links to it", () => {
    const text = decodeEntities(html);
    expect(text).toContain('href="/v3/openapi.json"');
    for (const id of [
      "authentication",
      "telephone-numbers",
      "send-messages",
      "list-messages",
      "get-sdrs",
      "list-numbers",
      "provision-number",
      "release-number",
      "errors",
      "sdr-statuses",
    ]) {
      expect(html).toContain(`id="${id}"`);
    }
    expect(text).toContain("^[A-Za-z0-9]{1,40}$");
    expect(text).toContain("default 50");
    const order = [
      "accepted",
      "queued",
      "sending",
      "message_sent",
      "wait_dlr",
      "delivered",
      "dlr_received",
      "status_sent",
    ];
    const positions = order.map((status) => html.indexOf(`id="sdr-${status}"`));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });
});
