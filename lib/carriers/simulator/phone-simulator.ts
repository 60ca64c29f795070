import { ApiError } from "../../api/api-error";
import { actorLabel, recordAudit } from "../../audit/audit-trail";
import type { AdminActor } from "../../api/admin-actor";
import { db } from "../../db/client";
import { env } from "../../env";
import { receiveMessage, type ReceivedMessage } from "../../messaging/receive-message";
import { attachmentsOf, checkOwnMedia } from "../../media/media-records";
import { ownMediaId } from "../../media/media-ids";
import type { SimulatorMessage, SimulatorThread } from "./phone-simulator-schema";

// The portal's phone simulator: an admin plays a phone that texts one of the account's numbers. Its text takes the
// path of every inbound message (receiveMessage, as the CLI's `inbound` and the carriers' own inbound do), so STOP,
// START and HELP, conversations and webhooks behave exactly as for a real phone. Only with the simulator carrier: on a
// real network the phone numbers are real people's, and a made-up STOP would opt one out.

export function simulatorEnabled(): boolean {
  return env().CARRIER === "simulator";
}

function requireSimulator(): void {
  if (!simulatorEnabled()) {
    throw new ApiError("InvalidRequest", {
      detail: `the phone simulator is off: this server's carrier is ${env().CARRIER}; it works with CARRIER=simulator only`,
    });
  }
}

/** The account number must be the account's; the phone must not be (the simulator plays phones outside it). */
async function checkNumbers(input: { accountId: string; phone: string; accountNumber: string }): Promise<void> {
  const held = await db().phoneNumber.findMany({
    where: { accountId: input.accountId, number: { in: [input.accountNumber, input.phone] } },
    select: { number: true },
  });
  const numbers = new Set(held.map((n) => n.number));
  if (!numbers.has(input.accountNumber)) {
    throw new ApiError("InvalidRequest", {
      detail: `accountNumber: +${input.accountNumber} is not one of this account's numbers`,
      field: "accountNumber",
    });
  }
  if (numbers.has(input.phone)) {
    throw new ApiError("InvalidRequest", {
      detail: `phone: +${input.phone} is one of this account's own numbers; the simulator plays a phone outside the account`,
      field: "phone",
    });
  }
}

/** The last `count` messages between the phone and the account number, both ways, oldest first. */
export async function readPhoneThread(input: {
  accountId: string;
  phone: string;
  accountNumber: string;
  count: number;
}): Promise<SimulatorThread> {
  requireSimulator();
  await checkNumbers(input);
  const { accountId, phone, accountNumber } = input;
  const where = {
    accountId,
    OR: [
      { direction: "outbound", fromNumber: accountNumber, toNumber: phone },
      { direction: "inbound", fromNumber: phone, toNumber: accountNumber },
    ],
  };
  const [rows, total, opt, conversation] = await Promise.all([
    db().message.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: input.count,
      select: {
        id: true,
        direction: true,
        body: true,
        media: true,
        status: true,
        rejectReason: true,
        userType: true,
        numSegments: true,
        createdAt: true,
        updatedAt: true,
      },
    }),
    db().message.count({ where }),
    db().optState.findUnique({
      where: { accountId_number: { accountId, number: phone } },
      select: { status: true },
    }),
    db().conversation.findUnique({
      where: { accountId_accountNumber_remoteNumber: { accountId, accountNumber, remoteNumber: phone } },
      select: { id: true },
    }),
  ]);
  const attachments = await attachmentsOf(rows.filter((r) => r.media !== "[]").map((r) => r.id));
  const messages: SimulatorMessage[] = rows.reverse().map((row) => ({
    messageId: row.id,
    direction: row.direction === "inbound" ? "inbound" : "outbound",
    body: row.body,
    media: JSON.parse(row.media) as string[],
    attachments: attachments.get(row.id) ?? [],
    status: row.status,
    rejectReason: row.rejectReason,
    automatic: row.userType === "automatic",
    numSegments: row.numSegments,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
  const optStatus = opt?.status === "in" || opt?.status === "out" ? opt.status : "";
  return { phone, accountNumber, conversationId: conversation?.id ?? null, optStatus, messages, total };
}

const KEYWORD_EFFECTS = { out: " (opted out)", in: " (opted in)", help: " (help sent)" } as const;

/** A text from the phone, received as a real phone's would be; recorded in the audit trail with who typed it. */
export async function textFromPhone(input: {
  accountId: string;
  phone: string;
  accountNumber: string;
  text: string;
  /** Pictures the phone sends: media uploaded to Parley (POST /v3/media) by the account. */
  media?: string[];
  actor: AdminActor;
  ip: string;
}): Promise<ReceivedMessage> {
  requireSimulator();
  await checkNumbers(input);
  const media = input.media ?? [];
  // The simulated phone's pictures are uploaded first: it never makes Parley fetch an address of its choosing.
  const outside = media.findIndex((url) => ownMediaId(url) === null);
  if (outside >= 0) {
    throw new ApiError("InvalidRequest", {
      detail: `media[${outside}]: attach a picture uploaded to Parley (POST /v3/media)`,
      field: "media",
    });
  }
  await checkOwnMedia(input.accountId, media);
  const received = await receiveMessage({
    from: input.phone,
    to: input.accountNumber,
    text: input.text,
    media,
    numSegments: 1,
    receivedAt: new Date(),
  });
  // The number was checked a moment ago; it can only be missing if it was released in between.
  if (!received || received.accountId !== input.accountId) {
    throw new ApiError("InvalidRequest", {
      detail: `accountNumber: +${input.accountNumber} is not one of this account's numbers`,
      field: "accountNumber",
    });
  }
  const words = input.text.length > 60 ? `${input.text.slice(0, 59)}…` : input.text;
  const preview = media.length > 0 ? `${words}${words ? " " : ""}[${media.length} attached]` : words;
  const effect = received.opt.kind ? KEYWORD_EFFECTS[received.opt.kind] : "";
  await recordAudit({
    accountId: input.accountId,
    actor: actorLabel(input.actor),
    action: "simulator.inbound",
    target: received.messageId,
    detail: `+${input.phone} → +${input.accountNumber}: "${preview}"${effect}`,
    ip: input.ip,
  });
  return received;
}

/** Phones the account has talked with lately, newest first: the simulator offers them to pick from. */
export async function recentPhones(input: { accountId: string; limit: number }): Promise<string[]> {
  const rows = await db().conversation.findMany({
    where: { accountId: input.accountId },
    orderBy: { lastMessageAt: "desc" },
    take: input.limit * 3,
    select: { remoteNumber: true },
  });
  return [...new Set(rows.map((row) => row.remoteNumber))].slice(0, input.limit);
}
