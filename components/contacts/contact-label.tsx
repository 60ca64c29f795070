import { formatNumber } from "@/components/ui/format-time";

/** A phone as staff know it: the contact's name with the number beside it, smaller; the number alone if unnamed. */
export function ContactLabel({ name, number }: { name: string | null | undefined; number: string }) {
  if (!name) return <span className="font-mono">{formatNumber(number)}</span>;
  return (
    <>
      <span>{name}</span> <span className="font-mono text-xs font-normal text-slate-500">{formatNumber(number)}</span>
    </>
  );
}
