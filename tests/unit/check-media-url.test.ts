import { describe, expect, it } from "vitest";
import {
  checkMediaUrl,
  MEDIA_URL_MAX,
  mediaUrlSchema,
  partitionMedia,
  safeHttpUrl,
} from "../../lib/messaging/check-media-url";
import { parseSendRequest } from "../../lib/messaging/send-schema";
import { replySchema } from "../../lib/conversations/conversation-schema";
import { ApiError } from "../../lib/api/api-error";

// Spellings a browser reads as another scheme, or as no absolute http(s) URL at all: each must be refused, and
// `kind` (what the audit trail records) must be the scheme the browser would see, never more of the URL.
const REFUSED: [label: string, url: string, kind: string][] = [
  ["javascript:", "javascript:alert(document.cookie)", "javascript:"],
  ["upper case", "JAVASCRIPT:alert(1)", "javascript:"],
  ["mixed case", "JavaScript:alert(1)", "javascript:"],
  ["a leading space", " javascript:alert(1)", "javascript:"],
  ["a leading tab and newline", "\t\njavascript:alert(1)", "javascript:"],
  ["a newline inside the scheme", "java\nscript:alert(1)", "javascript:"],
  ["a tab inside the scheme", "java\tscript:alert(1)", "javascript:"],
  ["a leading control character", "\u0001javascript:alert(1)", "javascript:"],
  ["a leading NUL", "\u0000javascript:alert(1)", "javascript:"],
  ["a percent-encoded scheme", "%6Aavascript:alert(1)", "not absolute"],
  ["data: text/html", "data:text/html,<script>alert(1)</script>", "data:"],
  ["data: image", "data:image/png;base64,iVBORw0KGgo=", "data:"],
  ["vbscript:", "vbscript:msgbox(1)", "vbscript:"],
  ["file:", "file:///etc/passwd", "file:"],
  ["blob:", "blob:https://example.com/0b8e1a5c", "blob:"],
  ["about:", "about:blank", "about:"],
  ["ftp:", "ftp://example.com/cat.jpg", "ftp:"],
  ["mailto:", "mailto:a@example.com", "mailto:"],
  ["a relative path", "images/cat.jpg", "not absolute"],
  ["an absolute path", "/images/cat.jpg", "not absolute"],
  ["a protocol-relative URL", "//evil.example/cat.jpg", "not absolute"],
  ["http without slashes", "http:evil.example/cat.jpg", "not absolute"],
  ["https with one slash", "https:/evil.example/cat.jpg", "not absolute"],
  ["https with backslashes", "https:\\\\evil.example\\cat.jpg", "not absolute"],
  ["a leading space before https", " https://example.com/cat.jpg", "spaces or controls"],
  ["a newline inside an https URL", "https://exa\nmple.com/cat.jpg", "spaces or controls"],
  ["a space in the path", "https://example.com/my cat.jpg", "spaces or controls"],
  ["user and password", "http://user:pw@example.com/cat.jpg", "credentials"],
  ["a user name alone", "https://user@example.com/cat.jpg", "credentials"],
  ["a host that hides behind a user name", "https://bank.example@evil.example/", "credentials"],
  ["no host", "http://", "not absolute"],
  ["empty", "", "not absolute"],
  ["too long", `https://example.com/${"a".repeat(MEDIA_URL_MAX)}`, "too long"],
];

const ACCEPTED = [
  "https://example.com/cat.jpg",
  "http://example.com/cat.jpg",
  "HTTPS://EXAMPLE.COM/Cat.JPG",
  "https://cdn.example.com:8443/a/b/c.png?size=large&x=%20#frag",
  "http://192.0.2.10/image.gif",
  "http://[2001:db8::1]/image.gif",
  "https://xn--bcher-kva.example/b.png",
];
const LONGEST = `https://example.com/${"a".repeat(MEDIA_URL_MAX - "https://example.com/".length)}`;

describe("the media URL rule", () => {
  it.each(REFUSED)("refuses %s", (_label, url, kind) => {
    const checked = checkMediaUrl(url);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.kind).toBe(kind);
    expect(safeHttpUrl(url)).toBeNull();
    expect(mediaUrlSchema.safeParse(url).success).toBe(false);
  });

  it.each(ACCEPTED)("accepts %s", (url) => {
    expect(checkMediaUrl(url).ok).toBe(true);
    expect(mediaUrlSchema.safeParse(url).success).toBe(true);
    expect(safeHttpUrl(url)).toMatch(/^https?:\/\//);
  });

  it(`accepts a URL of ${MEDIA_URL_MAX} characters`, () => {
    expect(LONGEST).toHaveLength(MEDIA_URL_MAX);
    expect(safeHttpUrl(LONGEST)).toBe(LONGEST);
  });

  it("refuses what is not a string", () => {
    for (const value of [null, undefined, 42, {}, ["https://example.com/"]]) expect(safeHttpUrl(value)).toBeNull();
  });

  it("gives the href as the parser reads it, so the link followed is the one checked", () => {
    expect(safeHttpUrl("HTTPS://Example.COM/a/../cat.jpg")).toBe("https://example.com/cat.jpg");
  });

  it("keeps the good URLs of a carrier's message in order and names the dropped ones by scheme only", () => {
    const { kept, dropped } = partitionMedia([
      "https://example.com/1.jpg",
      "javascript:alert('secret-token')",
      "http://example.com/2.jpg",
      "data:text/html,secret-token",
    ]);
    expect(kept).toEqual(["https://example.com/1.jpg", "http://example.com/2.jpg"]);
    expect(dropped).toEqual(["javascript:", "data:"]);
  });
});

describe("the send request's media", () => {
  const base = { accountId: "0195f3a2-7c4e-7b1a-9d2e-4f5a6b7c8d9e", from: "14155550100", to: "12125550123" };

  function refusal(media: unknown[]): ApiError {
    try {
      parseSendRequest({ ...base, media });
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    throw new Error("accepted");
  }

  it("names the field and the index of the refused entry, and the scheme", () => {
    const error = refusal(["https://example.com/ok.jpg", "JavaScript:alert(1)"]);
    expect(error.code).toBe("InvalidRequest");
    expect(error.field).toBe("media");
    expect(error.detail).toBe("'media[1]' must be an http:// or https:// URL (the scheme javascript: is not allowed)");
  });

  it("says why a URL with credentials or without a scheme is refused", () => {
    expect(refusal(["http://user:pw@example.com/a.png"]).detail).toBe(
      "'media[0]' must not contain a user name or password",
    );
    expect(refusal(["//example.com/a.png"]).detail).toBe(
      "'media[0]' must be an absolute URL beginning with http:// or https://",
    );
    expect(refusal([`https://example.com/${"a".repeat(MEDIA_URL_MAX)}`]).detail).toBe(
      `'media[0]' must be at most ${MEDIA_URL_MAX} characters`,
    );
  });

  it("is the rule of the conversation reply too", () => {
    const parsed = replySchema.safeParse({ body: "", media: ["data:text/html,x"], clientId: "c0123456789" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ["media", 0] });
    expect(parsed.error?.issues[0]?.message).toContain("data:");
  });
});
