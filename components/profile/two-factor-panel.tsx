"use client";

import { useState, type FormEvent } from "react";
import { useTwoFactor, type TwoFactorSetup as Setup } from "@/components/data/use-profile";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { TextField } from "@/components/ui/field";
import { failureReason } from "@/components/ui/field-errors";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { TimeText } from "@/components/ui/time-text";
import type { TwoFactorStatus } from "@/lib/auth/two-factor-enrolment";

/** Recovery codes just made: shown until the user says they are saved, kept in this component's state only. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <section
      aria-label="Recovery codes"
      className="rounded-lg border border-emerald-200 bg-emerald-50 p-5 text-sm text-emerald-950"
    >
      <h3 className="text-base font-semibold">Your recovery codes</h3>
      <p className="mt-1">
        Each code signs you in once without your authenticator app, for when you lose your phone. Save them now in a
        password manager or print them: you will not see them again.
      </p>
      <ul data-testid="recovery-codes" className="mt-3 grid max-w-md grid-cols-2 gap-x-6 gap-y-1 font-mono text-sm">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="mt-3 flex flex-wrap gap-2">
        <CopyButton text={codes.join("\n")} label="Copy codes" />
        <Button variant="secondary" size="sm" onClick={onDone}>
          I have saved these codes
        </Button>
      </div>
    </section>
  );
}

/** The Profile page's "Two-factor authentication" section: set up, turn off, new recovery codes. */
export function TwoFactorPanel({ initial }: { initial: TwoFactorStatus }) {
  const twoFactor = useTwoFactor();
  const [status, setStatus] = useState(initial);
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(work: () => Promise<void>) {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await work();
    } catch (failure) {
      setError(failureReason(failure));
    } finally {
      setBusy(false);
    }
  }

  const refresh = async () => setStatus(await twoFactor.status());

  const startSetup = () =>
    run(async () => {
      setSetup(await twoFactor.setup());
      setCode("");
    });

  const turnOn = (event: FormEvent) => {
    event.preventDefault();
    return run(async () => {
      const { recoveryCodes, endedSessions } = await twoFactor.enable(code);
      setSetup(null);
      setCode("");
      setCodes(recoveryCodes);
      await refresh();
      if (endedSessions > 0) {
        const sessions = endedSessions === 1 ? "Your other session was" : `Your ${endedSessions} other sessions were`;
        setNotice(`${sessions} signed out: they sign in again with a code.`);
      }
    });
  };

  const turnOff = () =>
    run(async () => {
      await twoFactor.disable(code);
      setCode("");
      setCodes(null);
      await refresh();
      setNotice("Two-factor sign-in is off: you sign in with your password alone.");
    });

  const newCodes = () =>
    run(async () => {
      const recoveryCodes = await twoFactor.newRecoveryCodes(code);
      setCode("");
      setCodes(recoveryCodes);
      await refresh();
    });

  const codeField = (
    <TextField
      label="Authentication code"
      value={code}
      onChange={(e) => setCode(e.target.value)}
      inputMode="numeric"
      autoComplete="one-time-code"
      spellCheck={false}
      maxLength={20}
      className="max-w-xs"
      error={error}
      hint={
        status.state === "on"
          ? "The 6-digit code your authenticator app shows now (or a recovery code)."
          : "The 6-digit code your authenticator app shows now."
      }
    />
  );

  return (
    <Panel
      title="Two-factor authentication"
      description="Sign in with a code from an authenticator app on your phone as well as your password."
    >
      <div className="space-y-4 text-sm">
        {status.required && status.state !== "on" && (
          <Notice tone="warning">
            Your account requires two-factor sign-in. Set it up to use the portal: the other pages open once it is on.
          </Notice>
        )}
        {notice && <Notice tone="success">{notice}</Notice>}
        {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}

        {status.state === "on" ? (
          <>
            <p className="text-slate-700">
              <span className="font-medium text-emerald-700">Two-factor sign-in is on</span>
              {status.enabledAt && (
                <>
                  {" "}
                  since <TimeText iso={status.enabledAt} />
                </>
              )}
              . {status.recoveryCodesLeft} of 10 recovery codes left.
            </p>
            {codeField}
            <div className="flex flex-wrap items-center gap-2">
              <Button variant="secondary" disabled={busy || code.trim() === ""} onClick={newCodes}>
                New recovery codes
              </Button>
              <Button
                variant="secondary"
                disabled={busy || code.trim() === "" || status.required}
                title={status.required ? "The account requires two-factor sign-in." : undefined}
                onClick={turnOff}
              >
                Turn off two-factor
              </Button>
            </div>
            {status.required && (
              <p className="text-xs text-slate-500">
                The account requires two-factor sign-in, so it cannot be turned off. Lost your phone? Sign in with a
                recovery code, or ask an admin to reset it.
              </p>
            )}
          </>
        ) : setup ? (
          <form onSubmit={turnOn} className="space-y-4">
            <ol className="list-decimal space-y-1 pl-5 text-slate-700">
              <li>Scan the QR code with an authenticator app (such as Google Authenticator, 1Password or Aegis).</li>
              <li>Or type the key in by hand: choose a time-based code.</li>
              <li>Enter the code the app shows, to check it works.</li>
            </ol>
            <div className="flex flex-wrap items-center gap-6">
              {/* An SVG data URL made on the server: no script, nothing fetched from elsewhere. */}
              <img
                src={setup.qrCode}
                alt="QR code of your two-factor key"
                width={180}
                height={180}
                className="rounded-md border border-slate-200 bg-white"
              />
              <div>
                <p className="text-xs font-medium text-slate-500 uppercase">Key</p>
                <code data-testid="two-factor-key" className="mt-1 block font-mono text-base text-slate-900">
                  {setup.key}
                </code>
                <div className="mt-2">
                  <CopyButton text={setup.key.replace(/\s/g, "")} label="Copy key" />
                </div>
              </div>
            </div>
            {codeField}
            <Button type="submit" disabled={busy || code.trim() === ""}>
              {busy ? "Checking…" : "Turn on two-factor"}
            </Button>
          </form>
        ) : (
          <>
            <p className="text-slate-700">
              Two-factor sign-in is off. Once it is on, signing in asks for the code your authenticator app shows, and
              you get ten recovery codes for when you lose your phone.
            </p>
            {error && <Notice tone="error">{error}</Notice>}
            <Button disabled={busy} onClick={startSetup}>
              Set up two-factor
            </Button>
          </>
        )}
      </div>
    </Panel>
  );
}
