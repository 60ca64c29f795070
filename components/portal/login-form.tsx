"use client";

import { signIn } from "next-auth/react";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense, useState, type FormEvent } from "react";
import { TWO_FACTOR_REQUIRED, TWO_FACTOR_WRONG_CODE } from "@/lib/auth/two-factor-errors";

function Form() {
  const router = useRouter();
  const params = useSearchParams();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Asked for once the email and password were right and the user has two-factor on.
  const [needsCode, setNeedsCode] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      ...(needsCode ? { code: String(form.get("code") ?? "") } : {}),
      redirect: false,
    });
    setBusy(false);
    if (result?.error === TWO_FACTOR_REQUIRED) {
      setNeedsCode(true);
      return;
    }
    if (result?.error === TWO_FACTOR_WRONG_CODE) {
      setError("Wrong authentication code, or one used already. Enter the code your app shows now.");
      return;
    }
    if (!result || result.error) {
      // A throttled sign-in says how long to wait; anything else is the same answer for a wrong email or password.
      setError(result?.error?.startsWith("Too many") ? result.error : "Wrong email or password.");
      return;
    }
    const next = params.get("callbackUrl");
    router.push(next && next.startsWith("/") && !next.startsWith("//") ? next : "/");
    router.refresh();
  }

  return (
    <form onSubmit={submit} className="mt-6 space-y-4">
      <label className="block">
        <span className="text-sm font-medium">Email</span>
        <input
          name="email"
          type="email"
          autoComplete="username"
          required
          className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2"
        />
      </label>
      <label className="block">
        <span className="text-sm font-medium">Password</span>
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          required
          className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2"
        />
      </label>
      {needsCode && (
        <label className="block">
          <span className="text-sm font-medium">Authentication code</span>
          <input
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            autoFocus
            required
            maxLength={20}
            spellCheck={false}
            aria-describedby="code-hint"
            className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2"
          />
          <span id="code-hint" className="mt-1 block text-xs text-slate-500">
            The 6-digit code from your authenticator app, or one of your recovery codes.
          </span>
        </label>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
      <button
        type="submit"
        disabled={busy}
        className="w-full rounded-md bg-indigo-600 px-3 py-2 font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
      >
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}

export function LoginForm() {
  return (
    <Suspense>
      <Form />
    </Suspense>
  );
}
