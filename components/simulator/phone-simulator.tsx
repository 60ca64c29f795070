"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useViewer } from "@/components/portal/portal-context";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { SelectField, TextField } from "@/components/ui/field";
import { formatNumber } from "@/components/ui/format-time";
import { Panel } from "@/components/ui/page-header";
import { phoneNumberInput } from "@/lib/carriers/simulator/phone-simulator-schema";
import type { MediaLimits } from "@/lib/media/attachment";
import { PhoneCard } from "./phone-card";
import { SimulatorRules, type SimulatorOutcome } from "./simulator-rules";
import { sameLine, useOpenPhones } from "./use-open-phones";
import type { PhoneLine } from "@/components/data/use-phone-thread";

export interface AccountNumberOption {
  number: string; // E.164 digits
  label: string;
}

/** The simulator: a form to open a phone on one of the account's numbers, and the open phones side by side. */
export function PhoneSimulator({
  numbers,
  suggestions,
  outcomes,
  receiptDelayMs,
  mediaLimits,
}: {
  numbers: AccountNumberOption[];
  /** Phones the account talked with lately, E.164 digits. */
  suggestions: string[];
  outcomes: SimulatorOutcome[];
  receiptDelayMs: number;
  /** The server's media settings (MEDIA_*_MAX_BYTES); the defaults when not given. */
  mediaLimits?: MediaLimits;
}) {
  const { accountId } = useViewer();
  const [stored, store] = useOpenPhones(accountId);
  const [phone, setPhone] = useState("");
  const [accountNumber, setAccountNumber] = useState(numbers[0]?.number ?? "");
  const [phoneError, setPhoneError] = useState<string | null>(null);
  const [opened, setOpened] = useState<PhoneLine | null>(null);

  // A number the account no longer holds would only answer errors: its phones are left out.
  const lines = stored?.filter((line) => numbers.some((n) => n.number === line.accountNumber)) ?? null;

  function open(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = phoneNumberInput.safeParse(phone);
    if (!parsed.success) {
      setPhoneError(`Phone number ${parsed.error.issues[0]!.message}`);
      return;
    }
    if (numbers.some((n) => n.number === parsed.data)) {
      setPhoneError("Phone number is one of this account's own numbers: pick a phone outside the account");
      return;
    }
    setPhoneError(null);
    const line = { phone: parsed.data, accountNumber };
    // The newest phone goes first, next to the form; one already open moves there.
    store([line, ...(lines ?? []).filter((l) => !sameLine(l, line))]);
    setOpened(line);
    setPhone("");
  }

  if (numbers.length === 0) {
    return (
      <EmptyState
        title="This account has no numbers yet"
        action={
          <Link href="/numbers" className="text-sm font-medium text-indigo-700 hover:underline">
            Add a number
          </Link>
        }
      >
        A simulated phone texts one of the account&apos;s numbers. Add a number first, then come back.
      </EmptyState>
    );
  }

  const outcomeOf = (digits: string) => outcomes.find((o) => digits.endsWith(o.ending))?.outcome ?? null;

  return (
    // Wide: the form and the network's rules side by side, the phones beneath. Narrow: the phones come right after
    // the form, the rules last.
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
      <Panel>
        <form onSubmit={open} noValidate className="space-y-4">
          <div>
            <h2 className="text-base font-semibold text-slate-900">Open a phone</h2>
            <p className="mt-0.5 text-sm text-slate-500">
              Each phone keeps its own conversation with one of the account&apos;s numbers, and stays open here until
              you close it.
            </p>
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              label="Phone number"
              value={phone}
              list="simulator-phones"
              inputMode="tel"
              autoComplete="off"
              placeholder="+14155550123"
              hint="The phone you play, E.164 with the country code."
              error={phoneError}
              onChange={(event) => {
                setPhone(event.target.value);
                if (phoneError) setPhoneError(null);
              }}
            />
            <datalist id="simulator-phones">
              {suggestions.map((digits) => (
                <option key={digits} value={formatNumber(digits)} />
              ))}
            </datalist>
            <SelectField
              label="Account number"
              value={accountNumber}
              hint="The account's number the phone texts."
              onChange={(event) => setAccountNumber(event.target.value)}
            >
              {numbers.map((n) => (
                <option key={n.number} value={n.number}>
                  {formatNumber(n.number)}
                  {n.label ? ` (${n.label})` : ""}
                </option>
              ))}
            </SelectField>
          </div>
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit">Open phone</Button>
            {suggestions.length > 0 && (
              <span className="text-xs text-slate-500">
                Recent:{" "}
                {suggestions.slice(0, 3).map((digits, index) => (
                  <span key={digits}>
                    {index > 0 && ", "}
                    <button
                      type="button"
                      className="text-indigo-700 hover:underline"
                      onClick={() => setPhone(formatNumber(digits))}
                    >
                      {formatNumber(digits)}
                    </button>
                  </span>
                ))}
              </span>
            )}
          </div>
        </form>
      </Panel>
      <SimulatorRules
        outcomes={outcomes}
        receiptDelayMs={receiptDelayMs}
        onPick={setPhone}
        className="order-last lg:order-none"
      />

      {lines === null ? null : lines.length === 0 ? (
        <div className="lg:col-span-2">
          <EmptyState title="No phone is open">
            Type a phone number, pick the account number it texts, and press Open phone. Then text from it as a customer
            would, and watch what your account sends to it arrive here. Several phones can be open at once.
          </EmptyState>
        </div>
      ) : (
        <div className="grid gap-4 sm:grid-cols-[repeat(auto-fill,minmax(22rem,1fr))] lg:col-span-2">
          {lines.map((line) => (
            <PhoneCard
              key={`${line.phone}-${line.accountNumber}`}
              line={line}
              label={numbers.find((n) => n.number === line.accountNumber)?.label ?? ""}
              outcome={outcomeOf(line.phone)}
              autoFocus={opened !== null && sameLine(opened, line)}
              onClose={() => store(lines.filter((l) => !sameLine(l, line)))}
              mediaLimits={mediaLimits}
            />
          ))}
        </div>
      )}
    </div>
  );
}
