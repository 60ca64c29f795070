import { db } from "../db/client";
import { uuidv4 } from "../db/ids";
import type { Prisma } from "../db/generated/sqlite/client";

/**
 * Conversational sends belong to the conversation of (from, destination), as inbound messages do: an accepted one
 * creates it or moves its last activity; one refused because the phone opted out joins an existing conversation
 * (the staff member sees the refusal in the thread) but never starts one. Only conversational sends pay for this;
 * notifications (conversational false) stay out of conversations.
 */
export async function attachConversations(
  accountId: string,
  from: string,
  messages: Prisma.MessageCreateManyInput[],
  at: Date,
): Promise<void> {
  for (const message of messages) {
    const key = { accountId, accountNumber: from, remoteNumber: message.toNumber };
    if (message.status === "queued" || message.status === "scheduled" || message.status === "held") {
      message.conversationId = await upsertConversation(key, at);
    } else if (message.rejectReason === "OptedOut") {
      const existing = await db().conversation.findUnique({
        where: { accountId_accountNumber_remoteNumber: key },
        select: { id: true },
      });
      message.conversationId = existing?.id ?? null;
    }
  }
}

async function upsertConversation(
  key: { accountId: string; accountNumber: string; remoteNumber: string },
  at: Date,
): Promise<string> {
  const where = { accountId_accountNumber_remoteNumber: key };
  try {
    const row = await db().conversation.upsert({
      where,
      create: { id: uuidv4(), ...key, lastMessageAt: at, createdAt: at },
      update: { lastMessageAt: at },
      select: { id: true },
    });
    return row.id;
  } catch (error) {
    // Two first messages at once: the other one created it.
    const row = await db().conversation.findUnique({ where, select: { id: true } });
    if (!row) throw error;
    return row.id;
  }
}
