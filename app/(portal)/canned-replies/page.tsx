import { requireUser } from "@/app/(portal)/require-user";
import { CannedRepliesScreen } from "@/components/canned-replies/canned-replies-screen";
import { PageHeader } from "@/components/ui/page-header";
import { listCannedReplies } from "@/lib/canned-replies/manage-canned-replies";

export const metadata = { title: "Canned replies · Parley" };

// /canned-replies (every staff member): saved replies inserted in a conversation by typing "/". Admins' replies are
// account-wide unless made personal; agents keep personal ones.
export default async function Page() {
  const user = await requireUser();
  const replies = await listCannedReplies({ accountId: user.accountId, userId: user.id, role: user.role });
  return (
    <>
      <PageHeader
        title="Canned replies"
        description="Answers you send often, with the contact's and your name filled in as they are inserted."
      />
      <CannedRepliesScreen initial={replies} />
    </>
  );
}
