import { describe, expect, it } from "vitest";
import { QueryClient } from "@tanstack/react-query";
import { applyChange, reducePhoneThread, reduceThread } from "../../components/conversations/apply-change";
import { keys } from "../../components/ui/query-keys";
import type { ThreadData } from "../../components/conversations/thread-types";
import type { ThreadMessage } from "../../lib/realtime/change-schema";
import type { SimulatorThread } from "../../lib/carriers/simulator/phone-simulator-schema";

// The live view's one reducer: the composer's bubble, the server's answer, a refusal and the live echo, in every
// order they can arrive, end in one bubble whose status only moved forward.

const conversationId = "conv1";
const clientId = "c0123456789abcdef";

function message(over: Partial<ThreadMessage>): ThreadMessage {
  return {
    id: "m1",
    conversationId,
    direction: "outbound",
    body: "Hello",
    media: [],
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

const bubble = message({ id: `pending-${clientId}`, status: "pending", createdAt: "2026-11-25T10:00:00.500Z" });
const answer = { messageId: "m1", status: "accepted" as const, reason: "", body: "Hello", numSegments: 1 };

function thread(messages: ThreadMessage[] = []): ThreadData {
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

describe("reduceThread: the composer's send", () => {
  it("shows the bubble at once, then gives it the server's id when the answer comes first", () => {
    let t = reduceThread(thread(), { kind: "pending", message: bubble });
    expect(t.messages).toEqual([bubble]);
    t = reduceThread(t, { kind: "answered", conversationId, clientId, message: answer });
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]).toMatchObject({ id: "m1", status: "queued", referenceId: clientId });
    // The echo that follows moves it forward and stays one bubble.
    t = reduceThread(t, { kind: "message", message: message({ status: "sent" }) });
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]).toMatchObject({ id: "m1", status: "sent" });
    // A stale echo (queued after sent) changes nothing.
    expect(reduceThread(t, { kind: "message", message: message({ status: "queued" }) })).toBe(t);
  });

  it("keeps the echo when it overtook the answer, and the answer changes nothing after it", () => {
    let t = reduceThread(thread(), { kind: "pending", message: bubble });
    t = reduceThread(t, { kind: "message", message: message({ status: "delivered" }) });
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]).toMatchObject({ id: "m1", status: "delivered", createdAt: bubble.createdAt });
    expect(reduceThread(t, { kind: "answered", conversationId, clientId, message: answer })).toBe(t);
  });

  it("marks a refused send rejected with its reason, and one that never reached the server failed", () => {
    const pending = reduceThread(thread(), { kind: "pending", message: bubble });
    const rejected = reduceThread(pending, {
      kind: "answered",
      conversationId,
      clientId,
      message: { ...answer, status: "rejected", reason: "OptedOut" },
    });
    expect(rejected.messages[0]).toMatchObject({ id: "m1", status: "rejected", reason: "OptedOut" });
    const failed = reduceThread(pending, {
      kind: "refused",
      conversationId,
      clientId,
      reason: "The server could not be reached.",
    });
    expect(failed.messages).toEqual([{ ...bubble, status: "failed", reason: "The server could not be reached." }]);
  });

  it("ignores a change of another conversation and a bubble added twice", () => {
    const t = reduceThread(thread(), { kind: "pending", message: bubble });
    expect(reduceThread(t, { kind: "pending", message: bubble })).toBe(t);
    expect(reduceThread(t, { kind: "message", message: message({ conversationId: "other" }) })).toBe(t);
    expect(reduceThread(t, { kind: "refused", conversationId: "other", clientId, reason: "x" })).toBe(t);
  });
});

describe("applyChange", () => {
  it("writes the composer's changes and the live ones into the same cached thread; only live ones refresh the list", () => {
    const cache = new QueryClient();
    cache.setQueryData(keys.conversations.thread(conversationId), thread());
    let listRefreshes = 0;
    const stale = () => listRefreshes++;
    applyChange(cache, { kind: "pending", message: bubble }, stale);
    applyChange(cache, { kind: "answered", conversationId, clientId, message: answer }, stale);
    expect(listRefreshes).toBe(0);
    applyChange(cache, { kind: "message", message: message({ status: "sent" }) }, stale);
    expect(listRefreshes).toBe(1);
    const cached = cache.getQueryData<ThreadData>(keys.conversations.thread(conversationId))!;
    expect(cached.messages.map((m) => [m.id, m.status])).toEqual([["m1", "sent"]]);
  });

  it("writes a change into the open phone of the simulator whose conversation it belongs to, and no other", () => {
    const cache = new QueryClient();
    const phone = (conversation: string | null): { thread: SimulatorThread } => ({
      thread: {
        phone: "14155550123",
        accountNumber: "14155550100",
        conversationId: conversation,
        optStatus: "",
        messages: [],
        total: 0,
      },
    });
    const mine = keys.simulator.phone({ phone: "14155550123", accountNumber: "14155550100", count: 50 });
    const other = keys.simulator.phone({ phone: "14155550999", accountNumber: "14155550100", count: 50 });
    cache.setQueryData(mine, phone(conversationId));
    cache.setQueryData(other, phone("conv2"));
    applyChange(cache, { kind: "message", message: message({ status: "sent", userType: "automatic" }) });
    applyChange(cache, { kind: "message", message: message({ status: "delivered" }) });
    applyChange(cache, { kind: "message", message: message({ status: "sent" }) });
    expect(cache.getQueryData<{ thread: SimulatorThread }>(mine)!.thread).toMatchObject({
      total: 1,
      messages: [{ messageId: "m1", status: "delivered", direction: "outbound", body: "Hello" }],
    });
    expect(cache.getQueryData<{ thread: SimulatorThread }>(other)!.thread.messages).toEqual([]);
  });
});

describe("reducePhoneThread", () => {
  const base: SimulatorThread = {
    phone: "14155550123",
    accountNumber: "14155550100",
    conversationId,
    optStatus: "",
    messages: [],
    total: 0,
  };
  it("keeps the last `count` messages, oldest first, and counts the rest", () => {
    let t = base;
    for (let n = 1; n <= 4; n++)
      t = reducePhoneThread(t, 3, message({ id: `m${n}`, body: `n${n}`, createdAt: `2026-11-25T10:00:0${n}.000Z` }));
    expect(t.messages.map((m) => m.body)).toEqual(["n2", "n3", "n4"]);
    expect(t.total).toBe(4);
  });
  it("shows a refusal's reason as the phone's 'never reached' line", () => {
    const t = reducePhoneThread(base, 50, message({ status: "rejected", reason: "OptedOut" }));
    expect(t.messages[0]).toMatchObject({ status: "rejected", rejectReason: "OptedOut" });
  });
});
