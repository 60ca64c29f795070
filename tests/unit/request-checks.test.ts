import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { appRoutePatterns } from "../../lib/http/app-route-patterns";
import { checkRequest, isApiPath } from "../../lib/http/check-request";
import { clientErrorAnswer, endSocketWithEnvelope } from "../../lib/http/envelope-answers";
import { ApiError } from "../../lib/api/api-error";

// What the server decides about a request before any route sees it, and how it answers on a bare socket.

const patterns = appRoutePatterns(join(import.meta.dirname, "..", "..", "app"));
const check = (method: string, target: string) => {
  const { target: rewritten, refusal } = checkRequest(method, target, patterns);
  return { target: rewritten, code: refusal?.code ?? null, field: refusal?.field ?? null };
};

describe("checkRequest", () => {
  it("finds the routes of the app directory, route groups left out", () => {
    const paths = patterns.map((p) => "/" + p.map((s) => ("literal" in s ? s.literal : `[${s.param}]`)).join("/"));
    expect(paths).toContain("/v3/sdrs/[accountId]/[messageId]");
    expect(paths).toContain("/api/admin/accounts/[accountId]/users/[userId]");
    expect(paths).toContain("/conversations/[conversationId]");
  });

  it.each(["TRACE", "OPTIONS", "PROPFIND", "CONNECT", "BREW"])("refuses %s on any path", (method) => {
    expect(check(method, "/v3/messages").code).toBe("ResourceNotAllowed");
    expect(check(method, "/").code).toBe("ResourceNotAllowed");
  });

  it.each([
    ["/v3/sdrs/a/%ZZ", "InvalidRequest", "messageId"],
    ["/v3/sdrs/%E2%82/b", "InvalidRequest", "accountId"],
    ["/v3/numbers/%00", "InvalidRequest", "number"],
    ["/api/admin/accounts/x/users/%FF", "InvalidRequest", "userId"],
    ["/api/admin/accounts/x/./users/%FF", "InvalidRequest", "userId"],
    ["/v3/%ZZ", "UnknownResource", null],
    ["/v3/messages%", "UnknownResource", null],
    ["/api/auth/%ZZ", "UnknownResource", null],
    ["/v3/%ZZ/..", "UnknownResource", null],
  ])("answers a malformed escape in %s with %s naming %s", (target, code, field) => {
    expect(check("GET", target)).toMatchObject({ code, field });
  });

  it.each([
    ["/v3/messages/", "/v3/messages"],
    ["/v3//messages?x=1", "/v3/messages?x=1"],
    ["/v3/./x/../messages", "/v3/messages"],
    ["/v3/%2e%2E/v3/messages", "/v3/messages"],
    ["/v3\\messages", "/v3/messages"],
    ["/v3/messages#frag", "/v3/messages"],
    ["http://example.com/v3/messages?a=b", "/v3/messages?a=b"],
    ["/x/../api/health", "/api/health"],
    ["/conversations/", "/conversations/"],
  ])("answers %s as %s", (target, canonical) => {
    expect(check("GET", target)).toEqual({ target: canonical, code: null, field: null });
  });

  it("refuses dot segments that lead out of the API", () => {
    expect(check("GET", "/v3/..").code).toBe("UnknownResource");
    expect(check("GET", "/api/%2e%2e/login").code).toBe("UnknownResource");
  });

  it("refuses NUL in a query parameter, naming it", () => {
    expect(check("GET", "/v3/messages?body=a%00")).toMatchObject({ code: "InvalidRequest", field: "body" });
    expect(check("GET", "/v3/messages?body=%ZZ").code).toBeNull();
  });

  it("refuses a target that is no path", () => {
    expect(check("GET", "*").code).toBe("UnknownResource");
  });

  it.each([
    ["/v3", true],
    ["/V3/messages", true],
    ["/v3%2Fmessages", true],
    ["/api", true],
    ["/apiary", false],
    ["/v3x", false],
    ["/", false],
  ])("counts %s as an API path: %s", (path, api) => {
    expect(isApiPath(path)).toBe(api);
  });
});

describe("answers on a bare socket", () => {
  function answer(method: string) {
    const socket = new PassThrough();
    let written = "";
    socket.on("data", (chunk: Buffer) => (written += chunk.toString("latin1")));
    endSocketWithEnvelope(socket, new ApiError("InvalidRequest", { detail: "x" }), method, "req-1");
    return { socket, written: () => written };
  }

  it("writes a whole HTTP/1.1 answer with the envelope and closes", async () => {
    const { written } = answer("GET");
    await new Promise((resolve) => setImmediate(resolve));
    const [head, body] = written().split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain("x-request-id: req-1");
    expect(head).toContain("connection: close");
    expect(JSON.parse(body!)).toMatchObject({ status: "InvalidRequest", statusCode: 400 });
  });

  it("answers HEAD with the head alone", async () => {
    const { written } = answer("HEAD");
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toMatch(/\r\n\r\n$/);
  });

  it("survives the client resetting the socket", () => {
    const { socket } = answer("GET");
    expect(() =>
      socket.emit("error", Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })),
    ).not.toThrow();
  });
});

describe("clientErrorAnswer", () => {
  const parseError = (code: string, raw: string) =>
    Object.assign(new Error(code), { code, rawPacket: Buffer.from(raw) });

  it("names a method the parser does not know", () => {
    const { error, method } = clientErrorAnswer(parseError("HPE_INVALID_METHOD", "BREW /pot HTTP/1.1\r\n"));
    expect([error.code, method]).toEqual(["ResourceNotAllowed", "BREW"]);
  });

  it("answers anything else that is not HTTP as InvalidRequest", () => {
    expect(clientErrorAnswer(parseError("HPE_INVALID_METHOD", "GARBAGE\r\n\r\n")).error.code).toBe("InvalidRequest");
    expect(clientErrorAnswer(parseError("HPE_HEADER_OVERFLOW", "GET / HTTP/1.1\r\n")).error.code).toBe(
      "InvalidRequest",
    );
    expect(clientErrorAnswer(parseError("HPE_INVALID_CHUNK_SIZE", "HEAD / HTTP/1.1\r\n")).method).toBe("HEAD");
  });
});
