import type { ListingResult } from "@/lib/messaging/message-serializers";

export function MessagesTable({ messages }: { messages: ListingResult[] }) {
  if (messages.length === 0)
    return <p className="mt-3 text-sm text-slate-500">No messages yet. Send one through the API.</p>;
  return (
    <div className="mt-3 overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-left text-sm">
        <thead className="bg-slate-50 text-slate-500">
          <tr>
            <th className="px-3 py-2 font-medium">Time (UTC)</th>
            <th className="px-3 py-2 font-medium">From</th>
            <th className="px-3 py-2 font-medium">To</th>
            <th className="px-3 py-2 font-medium">Body</th>
            <th className="px-3 py-2 font-medium">Segments</th>
            <th className="px-3 py-2 font-medium">Status</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((m) => (
            <tr key={m.messageId} className="border-t border-slate-100">
              <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{m.timestamp.replace(" UTC", "")}</td>
              <td className="px-3 py-2 font-mono">{m.from}</td>
              <td className="px-3 py-2 font-mono">{m.to}</td>
              <td className="max-w-xs truncate px-3 py-2">
                {m.body || (m.media.length > 0 ? `${m.media.length} media` : "")}
              </td>
              <td className="px-3 py-2">{m.numSegments}</td>
              <td className="px-3 py-2">{m.status || m.direction}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
