"use client";

import { useState, type FormEvent } from "react";
import { useAddUser } from "@/components/data/use-users";
import { Button } from "@/components/ui/button";
import { SelectField, TextField } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { Notice } from "@/components/ui/notice";
import { newUserInput, type UserRole } from "@/lib/accounts/user-schema";
import type { CreatedUser } from "./user-types";

const FIELDS = ["email", "name", "role"] as const;

export function AddUserForm({ onCreated }: { onCreated: (created: CreatedUser) => void }) {
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<UserRole>("agent");
  const { errors, check, refused, unplaced } = useFieldErrors({ fields: FIELDS, sentence: false });
  const create = useAddUser({
    onSuccess: (created) => {
      setEmail("");
      setName("");
      setRole("agent");
      onCreated(created);
    },
    onError: refused,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = { email, name, role };
    if (check(newUserInput.safeParse(body))) create.mutate(body);
  }

  const refusal = unplaced(create.error);
  return (
    <form onSubmit={submit} noValidate className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)_minmax(0,1fr)_auto] lg:items-start">
        <TextField
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          placeholder="ana@example.com"
          error={errors.email}
          hint="They sign in with it."
        />
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Ana Lima"
          maxLength={100}
          error={errors.name}
        />
        <SelectField
          label="Role"
          value={role}
          onChange={(e) => setRole(e.target.value as UserRole)}
          error={errors.role}
        >
          <option value="agent">Agent</option>
          <option value="admin">Admin</option>
        </SelectField>
        <Button type="submit" disabled={create.isPending} className="lg:mt-6">
          {create.isPending ? "Adding…" : "Add user"}
        </Button>
      </div>
      {refusal && <Notice tone="error">{refusal}</Notice>}
    </form>
  );
}
