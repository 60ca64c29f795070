// What a browser or media player gets back from /media/{id}: status, headers and the bytes to send.
import { describe, expect, it } from "vitest";
import { planMediaResponse } from "../../lib/media/serve-media";

const photo = { method: "GET" as const, contentType: "image/jpeg", size: 1000, fileName: "beach.jpg", range: null };
const pdf = { ...photo, contentType: "application/pdf", fileName: "invoice.pdf" };

describe("planMediaResponse", () => {
  it("answers a GET with the whole medium and the headers that keep it inert", () => {
    expect(planMediaResponse(photo)).toEqual({
      status: 200,
      range: null,
      headers: {
        "Content-Type": "image/jpeg",
        "Content-Length": "1000",
        "Accept-Ranges": "bytes",
        "Cache-Control": "private, max-age=31536000, immutable",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox; frame-ancestors 'none'",
        "Content-Disposition": `inline; filename="beach.jpg"; filename*=UTF-8''beach.jpg`,
      },
    });
  });

  it("answers a HEAD with the headers of the GET, Range or not", () => {
    expect(planMediaResponse({ ...photo, method: "HEAD" })).toEqual(planMediaResponse(photo));
    expect(planMediaResponse({ ...photo, method: "HEAD", range: "bytes=0-99" })).toEqual(planMediaResponse(photo));
  });

  it.each([
    ["bytes=0-99", 0, 99],
    ["bytes=500-", 500, 999],
    ["bytes=-100", 900, 999],
    ["bytes=990-5000", 990, 999],
    ["bytes=-5000", 0, 999],
    ["bytes=999-999", 999, 999],
    ["BYTES = 10-19", 10, 19],
  ])("answers %s with bytes %i-%i of 1000", (range, start, end) => {
    const plan = planMediaResponse({ ...photo, range });
    expect(plan.status).toBe(206);
    expect(plan.range).toEqual({ start, end });
    expect(plan.headers["Content-Range"]).toBe(`bytes ${start}-${end}/1000`);
    expect(plan.headers["Content-Length"]).toBe(String(end - start + 1));
    expect(plan.headers["Content-Type"]).toBe("image/jpeg");
    expect(plan.headers["Content-Disposition"]).toMatch(/^inline;/);
  });

  it.each(["bytes=0-1,5-9", "bytes=0-1, 5-9", "bytes=-", "bytes=abc", "items=0-9", "bytes=9-0", "bytes=0x10-"])(
    "answers %s with the whole medium",
    (range) => {
      const plan = planMediaResponse({ ...photo, range });
      expect(plan.status).toBe(200);
      expect(plan.range).toBeNull();
      expect(plan.headers["Content-Length"]).toBe("1000");
      expect(plan.headers["Content-Range"]).toBeUndefined();
    },
  );

  it.each(["bytes=1000-", "bytes=1000-1099", "bytes=-0"])("answers %s with 416 and the medium's size", (range) => {
    expect(planMediaResponse({ ...photo, range })).toEqual({
      status: 416,
      range: null,
      headers: {
        "Content-Range": "bytes */1000",
        "Content-Length": "0",
        "Accept-Ranges": "bytes",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox; frame-ancestors 'none'",
      },
    });
  });

  it("answers any range of an empty medium with its zero bytes", () => {
    const plan = planMediaResponse({ ...photo, size: 0, range: "bytes=0-" });
    expect(plan.status).toBe(200);
    expect(plan.headers["Content-Length"]).toBe("0");
  });

  it.each([
    ["image/png", "inline"],
    ["image/gif", "inline"],
    ["video/mp4", "inline"],
    ["audio/amr", "inline"],
    ["image/svg+xml", "attachment"],
    ["application/pdf", "attachment"],
    ["text/vcard", "attachment"],
    ["text/calendar", "attachment"],
    ["text/html", "attachment"],
  ])("shows %s %s", (contentType, disposition) => {
    const plan = planMediaResponse({ ...photo, contentType });
    expect(plan.headers["Content-Disposition"]?.split(";")[0]).toBe(disposition);
  });

  it("names a download in plain ASCII and exactly in UTF-8", () => {
    const plan = planMediaResponse({ ...pdf, fileName: "Café menu (été) 🍷.pdf" });
    expect(plan.headers["Content-Disposition"]).toBe(
      `attachment; filename="Cafe menu (ete) _.pdf"; filename*=UTF-8''Caf%C3%A9%20menu%20%28%C3%A9t%C3%A9%29%20%F0%9F%8D%B7.pdf`,
    );
  });

  it("keeps quotes, backslashes and percent signs out of the plain name", () => {
    const plan = planMediaResponse({ ...pdf, fileName: `say "hi" 100%.pdf` });
    expect(plan.headers["Content-Disposition"]).toBe(
      `attachment; filename="say _hi_ 100_.pdf"; filename*=UTF-8''say%20%22hi%22%20100%25.pdf`,
    );
  });

  it("drops folders, line breaks and direction overrides from the name", () => {
    const spoof = planMediaResponse({ ...pdf, fileName: "C:\\Users\\ada\\invoice\u202Efdp.exe" });
    expect(spoof.headers["Content-Disposition"]).toBe(
      `attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`,
    );
    const climbing = planMediaResponse({ ...pdf, fileName: "../../etc/passwd" });
    expect(climbing.headers["Content-Disposition"]).toBe(`attachment; filename="passwd"; filename*=UTF-8''passwd`);
    const injected = planMediaResponse({ ...pdf, fileName: "a.pdf\r\nSet-Cookie: x=1" });
    expect(injected.headers["Content-Disposition"]).not.toMatch(/[\r\n]/);
  });

  it.each(["", "   ", "..", "folder/"])("calls a medium named %j “media”", (fileName) => {
    const plan = planMediaResponse({ ...pdf, fileName });
    expect(plan.headers["Content-Disposition"]).toBe(`attachment; filename="media"; filename*=UTF-8''media`);
  });

  it("serves a type it cannot put in a header as application/octet-stream, to be downloaded", () => {
    const plan = planMediaResponse({ ...photo, contentType: "image/png\r\nX-Evil: 1" });
    expect(plan.headers["Content-Type"]).toBe("application/octet-stream");
    expect(plan.headers["Content-Disposition"]).toMatch(/^attachment;/);
  });

  it("keeps a type's parameters", () => {
    const plan = planMediaResponse({ ...pdf, contentType: "text/vcard; charset=utf-8" });
    expect(plan.headers["Content-Type"]).toBe("text/vcard; charset=utf-8");
  });
});
