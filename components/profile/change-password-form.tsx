"use client";

import { useState, type FormEvent } from "react";
import { useChangePassword } from "@/components/data/use-profile";
import { useViewer } from "@/components/portal/portal-context";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { PASSWORD_MIN_LENGTH, passwordChangeInput } from "@/lib/accounts/user-schema";

const FIELDS = ["currentPassword", "newPassword"] as const;

function signedOutText(ended: number): string {
  if (ended === 0) return "You had no other sessions.";
  return ended === 1 ? "Your 1 other session was signed out." : `Your ${ended} other sessions were signed out.`;
}

export function ChangePasswordForm() {
  const viewer = useViewer();
  const [currentPassword, setCurrentPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [confirmPassword, setConfirmPassword] = useState("");
  const [mismatch, setMismatch] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const { errors, check, refused, unplaced } = useFieldErrors({ fields: FIELDS, sentence: true });
  const change = useChangePassword({
    onSuccess: ({ endedSessions }) => {
      setCurrentPassword("");
      setNewPassword("");
      setConfirmPassword("");
      setDone(`Your password is changed. ${signedOutText(endedSessions)}`);
    },
    onError: (error) => {
      setDone(null);
      refused(error);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    const body = { currentPassword, newPassword };
    const valid = check(passwordChangeInput.safeParse(body));
    // Typed twice, so a slip of the finger does not lock the user out.
    const same = newPassword === confirmPassword;
    setMismatch(same ? null : "The two new passwords differ: type the same one in both.");
    if (valid && same) change.mutate(body);
  }

  const refusal = unplaced(change.error);
  return (
    <Panel title="Change password" description="Every other session of yours is signed out; this one stays signed in.">
      <form onSubmit={submit} noValidate className="max-w-md space-y-3">
        {/* For password managers: whose password this is. */}
        <input type="text" name="username" autoComplete="username" value={viewer.email} hidden readOnly />
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
          error={errors.currentPassword}
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          value={newPassword}
          onChange={(e) => setNewPassword(e.target.value)}
          error={errors.newPassword}
          hint={`At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words are easy to remember and hard to guess.`}
        />
        <TextField
          label="Confirm new password"
          type="password"
          autoComplete="new-password"
          value={confirmPassword}
          onChange={(e) => setConfirmPassword(e.target.value)}
          error={mismatch ?? undefined}
        />
        <Button type="submit" disabled={change.isPending}>
          {change.isPending ? "Changing…" : "Change password"}
        </Button>
        {done && <Notice tone="success">{done}</Notice>}
        {refusal && <Notice tone="error">{refusal}</Notice>}
      </form>
    </Panel>
  );
}
