// Which staff members a note's body mentions: "@" then a staff member's full name or first name, without case,
// ending at a non-letter. A full name wins over a first name; a first name two staff members share mentions neither
// (write the full name). Pure, so the composer could preview it.

export interface Staff {
  id: string;
  name: string;
  email: string;
}

function displayName(s: Staff): string {
  return s.name.trim() || s.email.split("@")[0]!;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function mentioned(body: string, name: string): boolean {
  if (name === "") return false;
  const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_@])@${escape(name).replace(/\s+/g, "\\s+")}(?![\\p{L}\\p{N}_])`, "iu");
  return pattern.test(body);
}

export function findMentions(body: string, staff: Staff[]): Staff[] {
  if (!body.includes("@")) return [];
  const firstNames = new Map<string, number>();
  for (const s of staff) {
    const first = displayName(s).split(/\s+/)[0]!.toLowerCase();
    firstNames.set(first, (firstNames.get(first) ?? 0) + 1);
  }
  return staff.filter((s) => {
    const name = displayName(s);
    if (mentioned(body, name)) return true;
    const first = name.split(/\s+/)[0]!;
    return first !== name && firstNames.get(first.toLowerCase()) === 1 && mentioned(body, first);
  });
}

export { displayName as staffName };
