import { requireUser } from "@/app/(portal)/require-user";
import { ContactsScreen } from "@/components/contacts/contacts-screen";
import { CONTACTS_PAGE } from "@/lib/contacts/contact-schemas";
import { PageHeader } from "@/components/ui/page-header";
import { listContacts } from "@/lib/contacts/manage-contacts";

export const metadata = { title: "Contacts · Parley" };

export default async function Page() {
  const user = await requireUser();
  const initial = await listContacts({ accountId: user.accountId, query: { start: 0, count: CONTACTS_PAGE } });
  return (
    <>
      <PageHeader
        title="Contacts"
        description="The people behind the phone numbers: their names show in conversations and messages instead of the number."
      />
      <ContactsScreen initial={initial} />
    </>
  );
}
