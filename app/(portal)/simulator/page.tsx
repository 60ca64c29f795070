import { requireAdmin } from "@/app/(portal)/require-user";
import { PhoneSimulator } from "@/components/simulator/phone-simulator";
import { Notice } from "@/components/ui/notice";
import { PageHeader } from "@/components/ui/page-header";
import { listNumbers } from "@/lib/numbers/manage-numbers";
import { recentPhones, simulatorEnabled } from "@/lib/carriers/simulator/phone-simulator";
import { SIMULATOR_OUTCOMES } from "@/lib/carriers/simulator/simulator-carrier";
import { env } from "@/lib/env";
import { LiveProvider } from "@/components/conversations/live-provider";
import { currentPosition } from "@/lib/conversations/thread-messages";

export const metadata = { title: "Phone simulator · Parley" };

export default async function Page() {
  const user = await requireAdmin();
  const title = "Phone simulator";
  if (!simulatorEnabled()) {
    return (
      <>
        <PageHeader title={title} />
        <Notice tone="warning">
          <p className="font-medium">The phone simulator is off.</p>
          <p className="mt-1">
            This server sends through a real carrier (<code>CARRIER={env().CARRIER}</code>), so the phones at the other
            end are real people&apos;s. To try Parley with simulated phones, start a test installation with{" "}
            <code>CARRIER=simulator</code> (the default), for example <code>CARRIER=simulator npm start</code>; the
            simulator then appears in the menu.
          </p>
        </Notice>
      </>
    );
  }
  const [{ numbers }, suggestions, position] = await Promise.all([
    listNumbers({ accountId: user.accountId }),
    recentPhones({ accountId: user.accountId, limit: 8 }),
    currentPosition(user.accountId),
  ]);
  return (
    <>
      <PageHeader
        title={title}
        description="Play a customer's phone: text your numbers from it, and see what your account sends to it arrive, with its delivery state. Its texts take the same path as a real phone's."
      />
      <LiveProvider initialPosition={position}>
        <PhoneSimulator
          numbers={numbers.map((n) => ({ number: n.number, label: n.label }))}
          suggestions={suggestions}
          outcomes={Object.entries(SIMULATOR_OUTCOMES).map(([ending, outcome]) => ({ ending, outcome }))}
          receiptDelayMs={env().SIMULATOR_RECEIPT_DELAY_MS}
          mediaLimits={{
            uploadMaxBytes: env().MEDIA_MAX_BYTES,
            imageMaxBytes: env().MEDIA_IMAGE_MAX_BYTES,
            messageMaxBytes: env().MEDIA_MESSAGE_MAX_BYTES,
          }}
        />
      </LiveProvider>
    </>
  );
}
