import Link from "next/link";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export default function MessageNotFound() {
  return (
    <>
      <PageHeader title="Message not found" />
      <EmptyState
        title="This account has no message with that id"
        action={
          <Link href="/messages" className="text-sm font-medium text-indigo-700 hover:underline">
            Back to all messages
          </Link>
        }
      >
        Check the id, or look the message up by its filters on the Messages page.
      </EmptyState>
    </>
  );
}
