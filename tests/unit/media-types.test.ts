// What MMS can carry, judged from a medium's first bytes: the accepted types with the type Parley serves them as,
// the refusals in words, kinds, and sizes in words.
import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { describeBytes, mediaKindOf, SNIFF_BYTES, sniffMediaType } from "../../lib/media/media-types";

const latin1 = (text: string) => Buffer.from(text, "latin1");

/** An ISO media file's start: an ftyp box with this major brand. */
function isoMedia(brand: string): Buffer {
  const head = Buffer.alloc(64);
  head.writeUInt32BE(24, 0);
  head.write("ftyp", 4, "latin1");
  head.write(brand.padEnd(4, " "), 8, "latin1");
  head.write("isom", 16, "latin1");
  head.writeUInt32BE(40, 24);
  head.write("mdat", 28, "latin1");
  return head;
}

async function sniffed(head: Uint8Array) {
  const result = await sniffMediaType(head);
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.type;
}

describe("sniffMediaType", () => {
  it("knows the images MMS carries from their bytes", async () => {
    const tiny = sharp({ create: { width: 4, height: 4, channels: 3, background: "#336699" } });
    expect(await sniffed(await tiny.clone().jpeg().toBuffer())).toEqual({
      contentType: "image/jpeg",
      kind: "image",
      extension: "jpg",
    });
    expect(await sniffed(await tiny.clone().png().toBuffer())).toEqual({
      contentType: "image/png",
      kind: "image",
      extension: "png",
    });
    expect((await sniffed(await tiny.clone().gif().toBuffer())).contentType).toBe("image/gif");
    expect((await sniffed(await tiny.clone().webp().toBuffer())).contentType).toBe("image/webp");
    expect((await sniffed(isoMedia("heic"))).contentType).toBe("image/heic");
    expect((await sniffed(isoMedia("mif1"))).contentType).toBe("image/heif");
  });

  it("knows video and audio, naming the m4a and Opus variants by the type Parley serves", async () => {
    expect(await sniffed(isoMedia("isom"))).toEqual({ contentType: "video/mp4", kind: "video", extension: "mp4" });
    expect(await sniffed(isoMedia("3gp5"))).toEqual({ contentType: "video/3gpp", kind: "video", extension: "3gp" });
    expect((await sniffed(isoMedia("qt"))).contentType).toBe("video/quicktime");
    expect(await sniffed(isoMedia("M4A"))).toEqual({ contentType: "audio/mp4", kind: "audio", extension: "m4a" });
    // An MPEG audio frame header (layer III, 128 kbit/s, 44.1 kHz).
    expect(await sniffed(Buffer.concat([latin1("\xff\xfb\x90\x64"), Buffer.alloc(600)]))).toEqual({
      contentType: "audio/mpeg",
      kind: "audio",
      extension: "mp3",
    });
    expect((await sniffed(latin1("#!AMR\n\x3c\x00\x00\x00"))).contentType).toBe("audio/amr");
    expect((await sniffed(latin1("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00"))).contentType).toBe("audio/wav");
  });

  it("accepts PDF, vCard and iCalendar as files", async () => {
    expect(await sniffed(latin1("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"))).toEqual({
      contentType: "application/pdf",
      kind: "file",
      extension: "pdf",
    });
    expect(await sniffed(latin1("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ada\r\nEND:VCARD\r\n"))).toEqual({
      contentType: "text/vcard",
      kind: "file",
      extension: "vcf",
    });
    // A byte-order mark and a lower-case keyword, as some phones write them.
    expect((await sniffed(Buffer.from("\uFEFFbegin:vcard\nVERSION:4.0\n"))).contentType).toBe("text/vcard");
    expect((await sniffed(latin1("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"))).contentType).toBe("text/calendar");
  });

  it("refuses markup whatever it is called: HTML, SVG with and without an XML declaration, XML", async () => {
    expect(await sniffMediaType(Buffer.from("<!DOCTYPE html><html><body>hi</body></html>"))).toEqual({
      ok: false,
      reason: "text/html is not a type MMS can carry",
    });
    expect(await sniffMediaType(Buffer.from("  <html><script>alert(1)</script></html>"))).toEqual({
      ok: false,
      reason: "text/html is not a type MMS can carry",
    });
    expect(await sniffMediaType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toEqual({
      ok: false,
      reason: "image/svg+xml is not a type MMS can carry",
    });
    expect(
      await sniffMediaType(Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')),
    ).toEqual({ ok: false, reason: "image/svg+xml is not a type MMS can carry" });
    expect(await sniffMediaType(Buffer.from('<?xml version="1.0"?><note>hi</note>'))).toEqual({
      ok: false,
      reason: "application/xml is not a type MMS can carry",
    });
  });

  it("refuses executables, archives, other media types, unknown bytes and nothing at all", async () => {
    expect(await sniffMediaType(latin1("MZ\x90\x00\x03\x00\x00\x00\x04\x00"))).toEqual({
      ok: false,
      reason: "application/x-msdownload is not a type MMS can carry",
    });
    expect(await sniffMediaType(latin1("PK\x03\x04\x14\x00\x00\x00\x08\x00"))).toEqual({
      ok: false,
      reason: "application/zip is not a type MMS can carry",
    });
    expect(await sniffMediaType(latin1("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"))).toEqual({
      ok: false,
      reason: "application/x-elf is not a type MMS can carry",
    });
    expect(await sniffMediaType(latin1("BM\x46\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00"))).toEqual({
      ok: false,
      reason: "image/bmp is not a type MMS can carry",
    });
    expect(await sniffMediaType(Buffer.from("just some words, no known format\n"))).toEqual({
      ok: false,
      reason: "an unknown type, not one MMS can carry",
    });
    expect(await sniffMediaType(new Uint8Array(0))).toEqual({ ok: false, reason: "an empty file" });
  });

  it("needs no more than SNIFF_BYTES of a file", async () => {
    const jpeg = await sharp({
      create: {
        width: 400,
        height: 400,
        channels: 3,
        background: "#a0b0c0",
        noise: { type: "gaussian", mean: 128, sigma: 30 },
      },
    })
      .jpeg()
      .toBuffer();
    expect(jpeg.length).toBeGreaterThan(SNIFF_BYTES);
    expect((await sniffed(jpeg.subarray(0, SNIFF_BYTES))).contentType).toBe("image/jpeg");
  });
});

describe("mediaKindOf", () => {
  it("names the kind from the top-level type, parameters and case ignored", () => {
    expect(mediaKindOf("image/png")).toBe("image");
    expect(mediaKindOf("Video/MP4")).toBe("video");
    expect(mediaKindOf("audio/ogg; codecs=opus")).toBe("audio");
    expect(mediaKindOf("application/pdf")).toBe("file");
    expect(mediaKindOf("text/vcard")).toBe("file");
    expect(mediaKindOf("")).toBe("file");
  });
});

describe("describeBytes", () => {
  it("says sizes the way the limits are written, 1 KB being 1024 bytes", () => {
    expect(describeBytes(0)).toBe("0 bytes");
    expect(describeBytes(1)).toBe("1 byte");
    expect(describeBytes(512)).toBe("512 bytes");
    expect(describeBytes(1023)).toBe("1023 bytes");
    expect(describeBytes(1024)).toBe("1 KB");
    expect(describeBytes(1536)).toBe("1.5 KB");
    expect(describeBytes(600 * 1024)).toBe("600 KB");
    expect(describeBytes(5 * 1024 * 1024)).toBe("5 MB");
    expect(describeBytes(Math.round(7.4 * 1024 * 1024))).toBe("7.4 MB");
    expect(describeBytes(25 * 1024 * 1024)).toBe("25 MB");
    expect(describeBytes(1024 * 1024 - 1)).toBe("1 MB");
    expect(describeBytes(3 * 1024 * 1024 * 1024)).toBe("3 GB");
  });
});
