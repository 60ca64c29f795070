import type { Db } from "../db/client";
import { uuidv4, uuidv7 } from "../db/ids";
import { recordTransitionsInTx, sdrRow } from "../messaging/record-transitions";
import { WAITING_STATUSES } from "../messaging/message-status";
import { countSegments } from "../segments/count-segments";
import { matchOptKeyword, mentionsOptOut, type OptKeywordKind } from "./match-keyword";
import { readOptTexts } from "./opt-settings";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

export interface InboundForOpt {
  accountId: string;
  /** The account's number the phone wrote to: the automatic reply leaves from it. */
  accountNumber: string;
  phone: string;
  text: string;
  messageId: string;
  conversationId: string;
  receivedAt: Date;
}

export interface OptOutcome {
  /** The keyword's effect, or null for an ordinary message. */
  kind: OptKeywordKind | null;
  /** The automatic reply, queued for the worker like any outbound message. */
  replyMessageId: string | null;
  /** A text that mentions stopping without being a keyword, flagged for staff. */
  flagged: boolean;
}

export const POSSIBLE_OPT_OUT = "possibleOptOut";

/**
 * Every inbound message goes through here, inside the transaction that stores it, so that a STOP is never lost
 * between storing the text and honouring it: the opt state, the audit event and the automatic reply commit with
 * the message or not at all. Whatever the flags of the messages the phone received, the law and the carriers
 * require a STOP to be honoured. The changes to messages (queued ones cancelled, the reply's `accepted` and `queued`
 * records) go through recordTransitions like every message's; their after-commit work joins the caller's `later`.
 * The reply is stored here, in this transaction, rather than sent through sendMessages: that would refuse it (the
 * phone has just opted out) and commit it apart from the STOP it confirms. It leaves through the worker, paced, with
 * its SDRs and webhook events, like any queued message.
 */
export async function applyOptKeyword(tx: Tx, later: Set<() => void>, inbound: InboundForOpt): Promise<OptOutcome> {
  const match = matchOptKeyword(inbound.text);
  if (!match) {
    if (!mentionsOptOut(inbound.text)) return { kind: null, replyMessageId: null, flagged: false };
    await tx.messageFlag.create({
      data: {
        id: uuidv4(),
        messageId: inbound.messageId,
        accountId: inbound.accountId,
        conversationId: inbound.conversationId,
        kind: POSSIBLE_OPT_OUT,
        createdAt: inbound.receivedAt,
      },
    });
    return { kind: null, replyMessageId: null, flagged: true };
  }

  const texts = await readOptTexts(tx, inbound.accountId);
  if (!texts) return { kind: null, replyMessageId: null, flagged: false };
  const at = inbound.receivedAt;
  if (match.kind !== "help") {
    const status = match.kind;
    await tx.optState.upsert({
      where: { accountId_number: { accountId: inbound.accountId, number: inbound.phone } },
      create: { accountId: inbound.accountId, number: inbound.phone, status, changedAt: at },
      update: { status, changedAt: at },
    });
    await tx.optEvent.create({
      data: {
        id: uuidv7(at.getTime()),
        accountId: inbound.accountId,
        number: inbound.phone,
        action: status,
        source: "keyword",
        keyword: match.keyword,
        messageId: inbound.messageId,
        createdAt: at,
      },
    });
    if (status === "out") await cancelQueued(tx, later, inbound.accountId, inbound.phone, at);
  }

  // The reply goes even to a phone that has just opted out: the confirmation is the one message carriers expect.
  const reply = match.kind === "out" ? texts.stopReply : match.kind === "in" ? texts.startReply : texts.helpReply;
  const replyAt = new Date(Math.max(Date.now(), at.getTime() + 1));
  const replyMessageId = uuidv7(replyAt.getTime());
  const segments = countSegments(reply);
  await tx.message.create({
    data: {
      id: replyMessageId,
      accountId: inbound.accountId,
      direction: "outbound",
      messageType: "sms",
      fromNumber: inbound.accountNumber,
      toNumber: inbound.phone,
      body: reply,
      numSegments: segments.numSegments,
      encoding: segments.encoding,
      status: "queued",
      conversational: true,
      conversationId: inbound.conversationId,
      userType: "automatic",
      createdAt: replyAt,
      updatedAt: replyAt,
    },
  });
  const queuedDetails = `automatic reply to ${match.keyword}`;
  const sdrs = [
    sdrRow(replyMessageId, inbound.accountId, "accepted", replyAt.getTime()),
    sdrRow(replyMessageId, inbound.accountId, "queued", replyAt.getTime(), { statusDetails: queuedDetails }),
  ];
  await recordTransitionsInTx(tx, { sdrs, at: replyAt }, later);
  await tx.conversation.update({ where: { id: inbound.conversationId }, data: { lastMessageAt: replyAt } });
  return { kind: match.kind, replyMessageId, flagged: false };
}

/**
 * Messages of the account still waiting in the queue for the phone (a bulk message waiting for its window, say) are
 * refused as a send would be now: a STOP covers what has not left yet. A message whose first part has been handed
 * to the carrier is finished.
 */
async function cancelQueued(tx: Tx, later: Set<() => void>, accountId: string, phone: string, at: Date): Promise<void> {
  const queued = await tx.message.findMany({
    where: { accountId, toNumber: phone, direction: "outbound", status: { in: WAITING_STATUSES }, partsSubmitted: 0 },
    select: { id: true, referenceId: true },
  });
  if (queued.length === 0) return;
  const recordedAt = Math.max(Date.now(), at.getTime());
  const refused = { status: "rejected", rejectReason: "OptedOut" };
  await recordTransitionsInTx(
    tx,
    {
      changes: [
        { ids: queued.map((m) => m.id), set: refused, onlyFrom: { status: WAITING_STATUSES, partsSubmitted: 0 } },
      ],
      sdrs: queued.map((m) =>
        sdrRow(m.id, accountId, "rejected", recordedAt, { statusDetails: "OptedOut", referenceId: m.referenceId }),
      ),
      at,
    },
    later,
  );
}
