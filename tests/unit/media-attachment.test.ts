import { describe, expect, it } from "vitest";
import {
  attachmentKind,
  attachmentLabel,
  attachmentsOf,
  estimateSentBytes,
  formatBytes,
  type Attachment,
} from "../../lib/media/attachment";
import { simulatorInboundBody } from "../../lib/carriers/simulator/phone-simulator-schema";
import { keepPending, reducePhoneThread, reduceThread } from "../../components/conversations/apply-change";
import type { ThreadData, ThreadMessageView } from "../../components/conversations/thread-types";
import type { SimulatorThread } from "../../lib/carriers/simulator/phone-simulator-schema";

// How the portal names, sizes and keeps a message's media: the words a user (and a screen reader) reads, and that a
// description of the media survives the live feed's changes, which carry only the URLs.

const photo: Attachment = {
  url: "https://parley.example/media/md_abc",
  contentType: "image/jpeg",
  size: 412 * 1024,
  name: "cat.jpg",
  state: "ready",
};

describe("formatBytes", () => {
  it.each([
    [0, "0 bytes"],
    [1, "1 byte"],
    [512, "512 bytes"],
    [1024, "1 KB"],
    [1536, "1.5 KB"],
    [412 * 1024, "412 KB"],
    [600 * 1024, "600 KB"],
    [1024 * 1024 - 1, "1 MB"],
    [1.2 * 1024 * 1024, "1.2 MB"],
    [5 * 1024 * 1024, "5 MB"],
    [7.4 * 1024 * 1024, "7.4 MB"],
    [25 * 1024 * 1024, "25 MB"],
    [3 * 1024 ** 3, "3 GB"],
  ])("%d bytes read %s", (bytes, words) => {
    expect(formatBytes(bytes)).toBe(words);
  });

  it("says so when the size is not a size", () => {
    expect(formatBytes(Number.NaN)).toBe("an unknown size");
    expect(formatBytes(-1)).toBe("an unknown size");
  });
});

describe("attachmentLabel and attachmentKind", () => {
  it("names an attachment by its place, type and size", () => {
    expect(attachmentLabel(photo, 0)).toBe("Attachment 1 (image/jpeg, 412 KB)");
    expect(attachmentLabel({ ...photo, contentType: "Video/MP4; codecs=avc1", size: null }, 2)).toBe(
      "Attachment 3 (video/mp4)",
    );
    expect(attachmentLabel({ ...photo, contentType: null, size: null }, 1)).toBe("Attachment 2");
  });

  it("shows as pictures only the images every browser draws", () => {
    expect(attachmentKind("image/png")).toBe("image");
    expect(attachmentKind("image/heic")).toBe("file");
    expect(attachmentKind("image/svg+xml")).toBe("file");
    expect(attachmentKind("video/mp4")).toBe("video");
    expect(attachmentKind("audio/amr")).toBe("audio");
    expect(attachmentKind("application/pdf")).toBe("file");
    expect(attachmentKind(null)).toBe("file");
  });
});

describe("attachmentsOf", () => {
  it("takes the server's description when there is one", () => {
    expect(attachmentsOf({ media: [photo.url], attachments: [photo] })).toEqual([photo]);
  });

  it("falls back to the media URLs, with nothing known of them", () => {
    expect(attachmentsOf({ media: ["https://example.com/a.jpg"] })).toEqual([
      { url: "https://example.com/a.jpg", contentType: null, size: null, name: null, state: "ready" },
    ]);
    expect(attachmentsOf({ media: ["https://example.com/a.jpg"], attachments: [] })).toHaveLength(1);
    expect(attachmentsOf({ media: [] })).toEqual([]);
  });
});

describe("estimateSentBytes", () => {
  const limits = { imageMaxBytes: 600 * 1024 };
  it("counts pictures at most at the image limit, and the rest as they are", () => {
    const media = [
      { contentType: "image/jpeg", size: 3 * 1024 * 1024 },
      { contentType: "image/heic", size: 2 * 1024 * 1024 },
      { contentType: "image/png", size: 100 * 1024 },
      { contentType: "video/mp4", size: 2 * 1024 * 1024 },
    ];
    expect(estimateSentBytes(media, limits)).toBe(600 * 1024 * 2 + 100 * 1024 + 2 * 1024 * 1024);
    expect(formatBytes(estimateSentBytes(media, limits))).toBe("3.3 MB");
  });
});

describe("simulatorInboundBody", () => {
  const base = { phone: "+14155550123", accountNumber: "+14155550100" };

  it("takes a picture without words, and words without pictures", () => {
    const picture = simulatorInboundBody.parse({ ...base, media: [photo.url] });
    expect(picture).toMatchObject({ text: "", media: [photo.url] });
    expect(simulatorInboundBody.parse({ ...base, text: "Hi" })).toMatchObject({ text: "Hi", media: [] });
  });

  it("refuses a message with neither, naming the text", () => {
    const result = simulatorInboundBody.safeParse({ ...base, text: "  ", media: [] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ["text"], message: "is empty: write something to send" });
  });

  it("refuses more than ten media and addresses that are not http(s)", () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.jpg`);
    expect(simulatorInboundBody.safeParse({ ...base, media: eleven }).error?.issues[0]?.message).toBe(
      "at most 10 media URLs",
    );
    const script = simulatorInboundBody.safeParse({ ...base, media: ["javascript:alert(1)"] });
    expect(script.error?.issues[0]?.path).toEqual(["media", 0]);
  });
});

const conversationId = "conv1";
const clientId = "c0123456789abcdef";

function message(over: Partial<ThreadMessageView>): ThreadMessageView {
  return {
    id: "m1",
    conversationId,
    direction: "outbound",
    body: "Look",
    media: [photo.url],
    status: "queued",
    reason: "",
    numSegments: 1,
    encoding: "GSM-7",
    automated: false,
    userId: "u1",
    userType: "agent",
    senderName: "Ann",
    referenceId: clientId,
    createdAt: "2026-11-25T10:00:01.000Z",
    updatedAt: "2026-11-25T10:00:01.000Z",
    ...over,
  };
}

function thread(messages: ThreadMessageView[]): ThreadData {
  return {
    conversation: {
      id: conversationId,
      accountNumber: "14155550100",
      remoteNumber: "14155550123",
      lastMessageAt: "2026-11-25T10:00:00.000Z",
      createdAt: "2026-11-25T09:00:00.000Z",
      contactName: null,
    },
    messages,
    hasOlder: false,
    optOut: null,
    possibleOptOut: [],
    lastReadAt: null,
    position: 0,
    notes: [],
  };
}

describe("a sent MMS keeps its description through the live feed", () => {
  const bubble = message({ id: `pending-${clientId}`, status: "pending" });

  it("describes the composer's bubble, then keeps that through the answer and the echo", () => {
    let t = reduceThread(thread([]), { kind: "pending", message: bubble });
    t = reduceThread(t, { kind: "described", conversationId, clientId, attachments: [photo] });
    expect(t.messages[0]!.attachments).toEqual([photo]);
    t = reduceThread(t, {
      kind: "answered",
      conversationId,
      clientId,
      message: { messageId: "m1", status: "accepted", reason: "", body: "Look", numSegments: 1 },
    });
    expect(t.messages[0]).toMatchObject({ id: "m1", attachments: [photo] });
    t = reduceThread(t, {
      kind: "message",
      message: message({ status: "delivered", updatedAt: "2026-11-25T10:00:05Z" }),
    });
    expect(t.messages[0]).toMatchObject({ status: "delivered", attachments: [photo] });
  });

  it("takes the server's own description over the browser's", () => {
    const fitted = { ...photo, size: 300 * 1024 };
    let t = thread([message({ attachments: [photo] })]);
    t = reduceThread(t, { kind: "message", message: message({ status: "sent", attachments: [fitted] }) });
    expect(t.messages[0]!.attachments).toEqual([fitted]);
  });

  it("drops the description when the media changed", () => {
    let t = thread([message({ attachments: [photo] })]);
    t = reduceThread(t, { kind: "message", message: message({ status: "sent", media: ["https://x.example/b.png"] }) });
    expect(t.messages[0]!.attachments).toBeUndefined();
  });

  it("keeps it when the thread is read again from a server that does not describe media", () => {
    const fresh = thread([message({ status: "sent" })]);
    const kept = keepPending(fresh, thread([message({ attachments: [photo] })]));
    expect(kept.messages[0]).toMatchObject({ status: "sent", attachments: [photo] });
  });

  it("shows the description on an open phone of the simulator", () => {
    const phone: SimulatorThread = {
      phone: "14155550123",
      accountNumber: "14155550100",
      conversationId,
      optStatus: "",
      messages: [],
      total: 0,
    };
    const next = reducePhoneThread(phone, 50, message({ attachments: [photo] }));
    expect(next.messages[0]).toMatchObject({ messageId: "m1", media: [photo.url], attachments: [photo] });
    const moved = reducePhoneThread(next, 50, message({ status: "delivered", updatedAt: "2026-11-25T10:00:09Z" }));
    expect(moved.messages[0]).toMatchObject({ status: "delivered", attachments: [photo] });
  });
});
