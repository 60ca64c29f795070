import { withAdmin, adminResult } from "@/lib/api/with-admin";
import { parseInput } from "@/lib/api/parse-input";
import { readJson } from "@/lib/api/read-json";
import { simulatorInboundBody } from "@/lib/carriers/simulator/phone-simulator-schema";
import { textFromPhone } from "@/lib/carriers/simulator/phone-simulator";

export const dynamic = "force-dynamic";

// POST /api/admin/accounts/{accountId}/simulator/inbound: {phone, accountNumber, text}, a text from a simulated
// phone, received exactly as a real phone's (opt keywords, conversation, webhook).
export const POST = withAdmin(async ({ req, accountId, actor, ip }) => {
  const input = parseInput(simulatorInboundBody, await readJson(req));
  const received = await textFromPhone({ accountId, ...input, actor, ip });
  return adminResult(
    {
      messageId: received.messageId,
      conversationId: received.conversationId,
      keyword: received.opt.kind,
      replyMessageId: received.opt.replyMessageId,
      flagged: received.opt.flagged,
    },
    true,
  );
});
