import { z } from "zod";

// The one rule for a URL that came from outside (MMS media from an API client, a carrier or a phone) and may end up
// as a link or an image in the portal: an absolute http: or https: URL with a host, no user name or password, at
// most MEDIA_URL_MAX characters. The scheme is judged by the WHATWG URL parser, as a browser would judge the href,
// so " JavaScript:", "java\tscript:" or "\x01data:" are what a browser makes of them (javascript:, data:).
// Shared by the server's schemas and the browser (no server imports).

/** The send schema's limit since the first release: longer URLs were always refused. */
export const MEDIA_URL_MAX = 2048;

export type MediaUrlCheck =
  | { ok: true; url: URL }
  | {
      ok: false;
      /** Why, in words an API caller reads after "'media[0]' ". */
      problem: string;
      /**
       * What the audit trail and the logs may name: the scheme as the parser read it ("javascript:"), or a word for
       * what is wrong. Never any other part of the URL, which is the sender's text.
       */
      kind: string;
    };

// Spaces and control characters: a browser strips or drops them (so "java\nscript:" is javascript:), and a URL
// stored with them reads differently to every other program that gets it (carriers, webhook receivers).
function hasSpaceOrControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return /[\s\u200b-\u200f]/.test(value);
}

// What the stored text must begin with, beside what the parser says: "https:example.com" and "https:/x" parse as
// https://example.com/ alone, but a browser resolves them against the portal's own address when they are an href.
const ABSOLUTE_HTTP = /^https?:\/\//i;

export function checkMediaUrl(value: unknown): MediaUrlCheck {
  if (typeof value !== "string") return { ok: false, problem: "must be a string", kind: "not a string" };
  if (value.length > MEDIA_URL_MAX) {
    return { ok: false, problem: `must be at most ${MEDIA_URL_MAX} characters`, kind: "too long" };
  }
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url && url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      problem: `must be an http:// or https:// URL (the scheme ${url.protocol} is not allowed)`,
      kind: url.protocol,
    };
  }
  const notAbsolute = {
    ok: false,
    problem: "must be an absolute URL beginning with http:// or https://",
    kind: "not absolute",
  } as const;
  if (!url) return notAbsolute;
  if (hasSpaceOrControl(value)) {
    return { ok: false, problem: "must not contain spaces or control characters", kind: "spaces or controls" };
  }
  if (!ABSOLUTE_HTTP.test(value)) return notAbsolute;
  if (url.hostname === "") return { ok: false, problem: "must name a host", kind: "no host" };
  if (url.username !== "" || url.password !== "") {
    return { ok: false, problem: "must not contain a user name or password", kind: "credentials" };
  }
  return { ok: true, url };
}

/**
 * The address to put in an href or src, or null when the value is not a safe http(s) URL (the caller then shows it
 * as plain text). The parser's own serialisation is returned, so what the browser follows is what was checked.
 */
export function safeHttpUrl(value: unknown): string | null {
  const checked = checkMediaUrl(value);
  return checked.ok ? checked.url.href : null;
}

/** One media URL in a request body: refused with the rule's own words. */
export const mediaUrlSchema = z
  .string()
  .max(MEDIA_URL_MAX, `must be at most ${MEDIA_URL_MAX} characters`)
  .superRefine((value, ctx) => {
    const checked = checkMediaUrl(value);
    if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.problem });
  })
  .meta({
    format: "uri",
    // Documents the beginning only: the rest of the rule is the parser's, which a pattern cannot say.
    pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
    description: `An absolute http:// or https:// URL the carrier fetches the attachment from: with a host, without a user name or password, without spaces, at most ${MEDIA_URL_MAX} characters. Any other scheme (javascript:, data:, file:, ftp:, …) is refused.`,
    example: "https://example.com/label.png",
  });

/** Splits media as received from a carrier into what may be kept and what must be dropped (by kind only). */
export function partitionMedia(urls: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const url of urls) {
    const checked = checkMediaUrl(url);
    if (checked.ok) kept.push(url);
    else dropped.push(checked.kind);
  }
  return { kept, dropped };
}
