import { z } from "zod";
import { validTn } from "../../messaging/phone-number";
import { mediaUrlSchema } from "../../messaging/check-media-url";
import { MAX_ATTACHMENTS, type Attachment } from "../../media/attachment";

// The phone simulator's input, shared by its routes and the page (no server imports), so the form shows the very
// error the server would answer, beside the field it names.

/** Longest text a simulated phone may send: ten concatenated GSM-7 parts, about what handsets allow. */
export const PHONE_TEXT_MAX = 1530;

/** A phone number as typed (with or without '+', spaces trimmed), answered as E.164 digits. */
export const phoneNumberInput = z.string().transform((value, ctx) => {
  const digits = validTn(value);
  if (digits === null) {
    ctx.addIssue({
      code: "custom",
      message:
        value.trim() === ""
          ? "is required: E.164 with the country code, such as +14155550123"
          : "is not a valid phone number: use E.164 with the country code, such as +14155550123",
    });
    return z.NEVER;
  }
  return digits;
});

/** GET …/simulator/thread: the last `count` messages between a phone and one of the account's numbers. */
export const simulatorThreadQuery = z.object({
  phone: phoneNumberInput,
  accountNumber: phoneNumberInput,
  count: z.coerce.number().int().min(1).max(500).default(50),
});

/** The phone's text: optional when it sends pictures, as an MMS may carry no words. */
const phoneText = z.string().max(PHONE_TEXT_MAX, `is longer than ${PHONE_TEXT_MAX} characters`);

/** POST …/simulator/inbound: a text (or pictures, with or without words) from the phone to one of the account's numbers. */
export const simulatorInboundBody = z
  .strictObject({
    phone: phoneNumberInput,
    accountNumber: phoneNumberInput,
    text: phoneText.default(""),
    /** Media the phone sends: addresses of media uploaded with POST /v3/media (or any http(s) URL). */
    media: z.array(mediaUrlSchema).max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} media URLs`).default([]),
  })
  .superRefine((input, ctx) => {
    if (input.text.trim() === "" && input.media.length === 0)
      ctx.addIssue({ code: "custom", path: ["text"], message: "is empty: write something to send" });
  });

/** The text box alone, as the phone card checks it before sending (the body's rule for text with no media). */
export const phoneTextInput = phoneText.refine((text) => text.trim() !== "", "is empty: write something to send");

export type SimulatorInboundInput = z.input<typeof simulatorInboundBody>;

/** One message of a phone's thread, as the simulator shows it. */
export interface SimulatorMessage {
  messageId: string;
  /** inbound: the phone sent it; outbound: the account sent it to the phone. */
  direction: "inbound" | "outbound";
  body: string;
  media: string[];
  /** The media described (type, size, state), when the server says so; without them, the URLs alone are shown. */
  attachments?: Attachment[];
  /** The listing status ("" for inbound): queued, sending, sent, delivered, undelivered, failed, expired, rejected. */
  status: string;
  rejectReason: string | null;
  /** An automatic reply to STOP, START or HELP. */
  automatic: boolean;
  numSegments: number;
  createdAt: string;
  updatedAt: string;
}

export interface SimulatorThread {
  phone: string;
  accountNumber: string;
  /** The conversation of the phone and the account number (null before its first conversational message): the live
   * feed's changes name it, so the page finds the phone a change is for. */
  conversationId: string | null;
  /** The phone's opt state in the account: "out", "in", or "" (no keyword or admin change yet). */
  optStatus: "in" | "out" | "";
  /** Messages of the thread, oldest first: the last `count` of `total`. */
  messages: SimulatorMessage[];
  total: number;
}
