import { AdminError } from "../accounts/manage-accounts";
import { checkMediaUrl } from "../messaging/check-media-url";
import { validTn } from "../messaging/phone-number";
import { receiveMessage } from "../messaging/receive-message";
import { inboundMediaFetched } from "../media/fetch-inbound";
import type { Command } from "./command";
import { e164 } from "./format-output";
import { describeOpt } from "./opt-commands";
import { optionalString, requiredString, UsageError } from "./read-arguments";

// `parley inbound`: a message from a phone, received through the same service as a carrier's.

export const inboundCommands: Command[] = [
  {
    name: "inbound",
    synopsis: "--from <phone> --to <account number> [--body <text>] [--media <url>]...",
    summary:
      "Receive a message from a phone, as the simulator carrier would: stored, listed, added to its conversation.",
    options: {
      from: { type: "string" },
      to: { type: "string" },
      body: { type: "string" },
      media: { type: "string", multiple: true },
    },
    prepare({ values }) {
      const from = requiredString(values, "from", "<phone>");
      const to = requiredString(values, "to", "<account number>");
      const body = optionalString(values, "body") ?? "";
      const media = (values.media as string[] | undefined) ?? [];
      if (body === "" && media.length === 0) throw new UsageError("give --body <text> or --media <url> (or both)");
      // An operator typed these: refused here, rather than dropped as a carrier's would be (receiveMessage).
      media.forEach((url, index) => {
        const checked = checkMediaUrl(url);
        if (!checked.ok) throw new UsageError(`--media #${index + 1}: ${checked.problem}`);
      });
      return async () => {
        const fromDigits = validTn(from);
        const toDigits = validTn(to);
        if (!fromDigits) throw new AdminError(`"${from}" is not a valid E.164 telephone number`);
        if (!toDigits) throw new AdminError(`"${to}" is not a valid E.164 telephone number`);
        const received = await receiveMessage({
          from: fromDigits,
          to: toDigits,
          text: body,
          media,
          numSegments: 1,
          receivedAt: new Date(),
        });
        if (!received) throw new AdminError(`${e164(toDigits)} is not provisioned to any account`);
        // Its media are copied into Parley's store before the command ends (a worker tries again if that fails).
        await inboundMediaFetched();
        return {
          json: { ...received, from: e164(fromDigits), to: e164(toDigits) },
          text: received.messageId,
          note: `Received from ${e164(fromDigits)} on ${e164(toDigits)} (account ${received.accountId}).${describeOpt(received.opt)}`,
        };
      };
    },
  },
];
