import { z } from "zod";
import type { ApiPrincipal } from "../api/authenticate";
import { checkOwnMedia } from "../media/media-records";
import { culprits } from "../segments/smart-encoding";
import { withPlus } from "./phone-number";
import { planSend } from "./send-message";
import { parseSendRequest } from "./send-schema";
import { assertSenderAccount } from "./sender";
import { isoWithOffset } from "./time-format";

// POST /v3/messages/preview: what POST /v3/messages would do with the same body, without sending or storing
// anything: the text as it would leave (smart encoding, the opt-out footer), its alphabet and segments, the
// characters that keep it out of GSM-7, and for each destination whether it would be refused and why.

// The answer's data; the OpenAPI document's PreviewResponse is generated from it.
export const previewDataSchema = z.object({
  apiVersion: z.literal("v3"),
  accountId: z.string(),
  messageType: z.enum(["sms", "mms"]),
  body: z.string().meta({ description: "The text as it would leave: smart encoding applied, the footer when due." }),
  encoding: z.enum(["GSM7", "LATIN1", "UCS2"]),
  numSegments: z.number().int().meta({ description: "Segments of `body` (1 for an MMS)." }),
  culprits: z.array(z.string()).meta({ description: "The characters that keep `body` out of GSM-7, each once." }),
  replaced: z.array(z.string()).meta({ description: "The look-alike characters smart encoding replaced." }),
  footer: z.boolean().meta({ description: "Whether the account's opt-out footer is added (for some destinations)." }),
  sendAt: z.string().nullable().meta({ description: "The scheduled time, as the listing would show it; null: now." }),
  destinations: z.array(
    z.object({
      to: z.string(),
      allowed: z.boolean(),
      reason: z.string().meta({ description: "Why it would be refused: FromNotOwned, InvalidDestination, …; empty." }),
      footer: z.boolean(),
    }),
  ),
});
export type PreviewData = Omit<z.infer<typeof previewDataSchema>, "apiVersion">;

export async function previewSend(input: { principal: ApiPrincipal; raw: unknown }): Promise<PreviewData> {
  const request = parseSendRequest(input.raw);
  assertSenderAccount({ kind: "apiKey", ...input.principal }, request.accountId);
  const plan = await planSend(request, new Date());
  if (plan.isMms) await checkOwnMedia(request.accountId, request.media ?? []);
  // The text shown is the one most destinations get: with the footer when any destination gets it.
  const shown = plan.entries.find((e) => e.footer) ?? plan.entries.find((e) => e.reason === null) ?? plan.entries[0]!;
  return {
    accountId: request.accountId,
    messageType: plan.isMms ? "mms" : "sms",
    body: shown.body,
    encoding: shown.segments.encoding,
    numSegments: shown.numSegments,
    culprits: culprits(shown.body, shown.segments.encoding),
    replaced: plan.replaced,
    footer: plan.entries.some((e) => e.footer),
    sendAt: plan.sendAt === null ? null : isoWithOffset(plan.sendAt),
    destinations: plan.entries.map((e) => ({
      to: e.digits !== null ? withPlus(e.digits) : e.destination,
      allowed: e.reason === null,
      reason: e.reason ?? "",
      footer: e.footer,
    })),
  };
}
