"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useSaveSettings } from "@/components/data/use-settings";
import { failureText } from "@/components/ui/api-client";
import { Button } from "@/components/ui/button";
import { SelectField, TextField } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import type { AccountSettings } from "@/lib/accounts/account-settings";

/**
 * The team inbox's settings (admins only, on the Settings page): what agents see, and automatic round-robin
 * assignment of new inbound conversations with a per-agent limit of open ones.
 */
export function AssignmentSettings({ initial }: { initial: AccountSettings }) {
  const router = useRouter();
  const [visibility, setVisibility] = useState(initial.conversationVisibility);
  const [autoAssign, setAutoAssign] = useState(initial.autoAssign);
  const [limit, setLimit] = useState(String(initial.agentOpenLimit));
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = useSaveSettings({
    onSuccess: () => {
      setSaved(true);
      router.refresh();
    },
    onError: (failure) => setError(failureText(failure)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    setError(null);
    const agentOpenLimit = Number(limit);
    if (limit.trim() === "" || !Number.isInteger(agentOpenLimit) || agentOpenLimit < 0) {
      setError("Open conversations per agent: a whole number, 0 for no limit.");
      return;
    }
    save.mutate({
      conversationVisibility: visibility === "assigned" ? "assigned" : "all",
      autoAssign,
      agentOpenLimit,
    });
  };
  return (
    <Panel title="Conversations" description="Who sees which conversations, and how new ones are handed out.">
      <form onSubmit={submit} className="space-y-4" aria-label="Conversation assignment">
        <SelectField label="Agents see" value={visibility} onChange={(e) => setVisibility(e.target.value)}>
          <option value="all">All conversations</option>
          <option value="assigned">Only theirs and the unassigned ones</option>
        </SelectField>
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input type="checkbox" checked={autoAssign} onChange={(e) => setAutoAssign(e.target.checked)} />
          Assign new conversations to agents automatically (round-robin)
        </label>
        <TextField
          label="Open conversations per agent"
          hint="Automatic assignment skips an agent who has this many open conversations; 0 means no limit."
          type="number"
          min={0}
          step={1}
          value={limit}
          onChange={(e) => setLimit(e.target.value)}
        />
        {error && <Notice tone="error">{error}</Notice>}
        {saved && <Notice tone="success">Saved.</Notice>}
        <Button type="submit" disabled={save.isPending}>
          Save conversation settings
        </Button>
      </form>
    </Panel>
  );
}
