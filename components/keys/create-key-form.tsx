"use client";

import { useState, type FormEvent } from "react";
import { useCreateKey } from "@/components/data/use-keys";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { Notice } from "@/components/ui/notice";
import { newKeyInput } from "@/lib/accounts/key-schema";
import type { CreatedKey } from "./key-types";

/** The first day a key may expire on: tomorrow (a key expires at 00:00 UTC of its day), as YYYY-MM-DD. */
function tomorrow(): string {
  return new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
}

const FIELDS = ["name", "expiresAt"] as const;

export function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedKey) => void }) {
  const [name, setName] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const { errors, check, refused, unplaced } = useFieldErrors({ fields: FIELDS, sentence: false });
  const create = useCreateKey({
    onSuccess: (created) => {
      setName("");
      setExpiresAt("");
      onCreated(created);
    },
    onError: refused,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = { name, ...(expiresAt ? { expiresAt } : {}) };
    if (check(newKeyInput.safeParse(body))) create.mutate(body);
  }

  const refusal = unplaced(create.error);
  return (
    <form onSubmit={submit} noValidate className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_auto] sm:items-start">
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Billing system"
          maxLength={100}
          error={errors.name}
          hint="Who or what uses the key, so you can recognise it later."
        />
        <TextField
          label="Expires"
          type="date"
          value={expiresAt}
          min={tomorrow()}
          onChange={(e) => setExpiresAt(e.target.value)}
          error={errors.expiresAt}
          hint="Optional. Stops working at 00:00 UTC that day."
        />
        <Button type="submit" disabled={create.isPending} className="sm:mt-6">
          {create.isPending ? "Creating…" : "Create key"}
        </Button>
      </div>
      {refusal && <Notice tone="error">{refusal}</Notice>}
    </form>
  );
}
