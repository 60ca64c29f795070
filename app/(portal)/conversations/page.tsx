export const metadata = { title: "Conversations · Parley" };
export const dynamic = "force-dynamic";

// The list is the layout's (it stays beside the thread on a wide screen); here, the space a thread opens in.
export default function Page() {
  return (
    <div className="hidden h-[calc(100dvh-2.5rem)] items-center justify-center rounded-lg border border-dashed border-slate-300 text-sm text-slate-500 xl:flex">
      Pick a conversation from the list, or start a new one.
    </div>
  );
}
