import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MediaAttachments } from "../../components/media/media-attachments";
import type { Attachment } from "../../lib/media/attachment";

// What a bubble shows of a message's media, as the browser receives it: pictures with their names for screen
// readers, players, download chips, the states of media not there yet, and never a link or an image for a URL that
// is not http(s).

function html(message: { media: string[]; attachments?: Attachment[] }): string {
  return renderToStaticMarkup(createElement(MediaAttachments, { message }));
}

function attachment(over: Partial<Attachment>): Attachment {
  return {
    url: "https://parley.example/media/md_1",
    contentType: "image/jpeg",
    size: 412 * 1024,
    name: "cat.jpg",
    state: "ready",
    ...over,
  };
}

describe("MediaAttachments", () => {
  it("shows a picture small and lazily, named for screen readers, opening the full size apart", () => {
    const out = html({ media: [], attachments: [attachment({})] });
    expect(out).toMatch(
      /<a [^>]*href="https:\/\/parley.example\/media\/md_1"[^>]*target="_blank"[^>]*rel="noopener noreferrer"/,
    );
    expect(out).toMatch(/<img [^>]*alt="Attachment 1 \(image\/jpeg, 412 KB\)"[^>]*loading="lazy"/);
    expect(out).toContain("max-h-60");
  });

  it("plays video and audio with the browser's own controls", () => {
    const out = html({
      media: [],
      attachments: [
        attachment({ contentType: "video/mp4", size: 2 * 1024 * 1024, name: "clip.mp4" }),
        attachment({ url: "https://parley.example/media/md_2", contentType: "audio/mpeg", name: "note.mp3" }),
      ],
    });
    expect(out).toMatch(/<video [^>]*src="https:\/\/parley.example\/media\/md_1"[^>]*controls=""/);
    expect(out).toMatch(/<video [^>]*aria-label="Attachment 1 \(video\/mp4, 2 MB\)"/);
    expect(out).toMatch(/<audio [^>]*src="https:\/\/parley.example\/media\/md_2"[^>]*controls=""/);
  });

  it("offers any other file as a chip with its name, type and size, to download", () => {
    const out = html({
      media: [],
      attachments: [attachment({ contentType: "application/pdf", size: 48 * 1024, name: "menu.pdf" })],
    });
    expect(out).toMatch(/<a [^>]*download="menu.pdf"/);
    expect(out).toContain("menu.pdf");
    expect(out).toContain("application/pdf · 48 KB");
    expect(out).not.toContain("<img");
  });

  it("says a medium is on its way, or will never come", () => {
    const out = html({
      media: [],
      attachments: [attachment({ state: "pending" }), attachment({ state: "unavailable" })],
    });
    expect(out).toContain("Loading attachment…");
    expect(out).toContain("attachment unavailable");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("href=");
  });

  it("shows bare media URLs as links named by their place, never as images", () => {
    const out = html({ media: ["https://example.com/cat.jpg", "https://example.com/menu.pdf"] });
    expect(out).not.toContain("<img");
    expect(out).toMatch(/href="https:\/\/example.com\/cat.jpg"[^>]*>.*Attachment 1/);
    expect(out).toMatch(/href="https:\/\/example.com\/menu.pdf"[^>]*>.*Attachment 2/);
  });

  it("shows a URL that is not http(s) as text, even when described as an image", () => {
    const out = html({
      media: [],
      attachments: [attachment({ url: "javascript:alert(1)" })],
    });
    expect(out).not.toContain("<img");
    expect(out).not.toContain("href=");
    expect(out).toContain("javascript:alert(1)");
    expect(out).toContain("data-unsafe-url");
  });
});
