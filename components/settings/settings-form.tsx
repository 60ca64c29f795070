"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useSaveSettings } from "@/components/data/use-settings";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { ACCOUNT_SETTING_FIELDS, accountSettingsInput } from "@/lib/accounts/settings-schema";
import type { AccountSettings } from "@/lib/accounts/account-settings";

type Form = {
  name: string;
  timeZone: string;
  rateLimitPerSecond: string;
  bulkWindowStart: string;
  bulkWindowEnd: string;
  bulkShare: string;
  requireTwoFactor: boolean;
  smartEncoding: boolean;
  allowedCountries: string;
  dailyMessageLimit: string;
  dailySegmentLimit: string;
  burstHoldThreshold: string;
};

function formOf(settings: AccountSettings): Form {
  return {
    name: settings.name,
    timeZone: settings.timeZone,
    rateLimitPerSecond: String(settings.rateLimitPerSecond),
    bulkWindowStart: settings.bulkWindowStart,
    bulkWindowEnd: settings.bulkWindowEnd,
    bulkShare: String(settings.bulkShare),
    requireTwoFactor: settings.requireTwoFactor,
    smartEncoding: settings.smartEncoding,
    allowedCountries: settings.allowedCountries.join(", "),
    dailyMessageLimit: String(settings.dailyMessageLimit),
    dailySegmentLimit: String(settings.dailySegmentLimit),
    burstHoldThreshold: String(settings.burstHoldThreshold),
  };
}

/** A number field's text as the schema reads it: empty is "no number" (NaN), not zero. */
function numberOf(text: string): number {
  return text.trim() === "" ? Number.NaN : Number(text);
}

function bodyOf(form: Form) {
  return {
    name: form.name,
    timeZone: form.timeZone,
    rateLimitPerSecond: numberOf(form.rateLimitPerSecond),
    bulkWindowStart: form.bulkWindowStart,
    bulkWindowEnd: form.bulkWindowEnd,
    bulkShare: numberOf(form.bulkShare),
    requireTwoFactor: form.requireTwoFactor,
    smartEncoding: form.smartEncoding,
    // "US, CA" or "US CA": the codes; empty: the countries of the account's numbers.
    allowedCountries: form.allowedCountries.split(/[\s,]+/).filter(Boolean),
    dailyMessageLimit: numberOf(form.dailyMessageLimit),
    dailySegmentLimit: numberOf(form.dailySegmentLimit),
    burstHoldThreshold: numberOf(form.burstHoldThreshold),
  };
}

function percent(text: string): string | null {
  const share = numberOf(text);
  if (!(share > 0 && share <= 1)) return null;
  return `${Math.round(share * 1000) / 10}%`;
}

export function SettingsForm({ initial }: { initial: AccountSettings }) {
  const router = useRouter();
  const [form, setForm] = useState<Form>(() => formOf(initial));
  const { errors, check, refused, unplaced } = useFieldErrors({ fields: ACCOUNT_SETTING_FIELDS, sentence: false });
  const [saved, setSaved] = useState(false);
  // The browser's own list of zones as suggestions, filled when the field is first used (so the server's render,
  // whose list may differ, has none to disagree with); the server decides what is valid.
  const [zones, setZones] = useState<string[]>([]);
  function suggestZones() {
    if (zones.length > 0) return;
    try {
      setZones(Intl.supportedValuesOf("timeZone"));
    } catch {
      // an older browser: no suggestions
    }
  }

  const save = useSaveSettings({
    onSuccess: ({ account }) => {
      setForm(formOf(account));
      setSaved(true);
      // The sidebar shows the account's name: render the layout again with the new one.
      router.refresh();
    },
    onError: refused,
  });

  function set<F extends keyof Form>(field: F, value: Form[F]) {
    setForm((current) => ({ ...current, [field]: value }));
    setSaved(false);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = bodyOf(form);
    setSaved(false);
    if (check(accountSettingsInput.safeParse(body))) save.mutate(body);
  }

  const refusal = unplaced(save.error);
  const share = percent(form.bulkShare);
  return (
    <form onSubmit={submit} noValidate className="space-y-6">
      <Panel title="Account">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Account name"
            value={form.name}
            onChange={(e) => set("name", e.target.value)}
            maxLength={100}
            error={errors.name}
            hint="Shown in the portal and in the automatic STOP, START and HELP replies."
          />
          <TextField
            label="Time zone"
            value={form.timeZone}
            onChange={(e) => set("timeZone", e.target.value)}
            list="time-zones"
            onFocus={suggestZones}
            autoComplete="off"
            spellCheck={false}
            error={errors.timeZone}
            hint="An IANA name such as America/New_York or Europe/Paris. The bulk window uses it for recipients whose own zone cannot be told from their number."
          />
          <datalist id="time-zones">
            {zones.map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
        </div>
      </Panel>

      <Panel title="Sending limits" description="The delivery worker applies a change on its next pass.">
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Account rate limit (segments a second)"
            type="number"
            inputMode="decimal"
            min={0}
            step="any"
            value={form.rateLimitPerSecond}
            onChange={(e) => set("rateLimitPerSecond", e.target.value)}
            error={errors.rateLimitPerSecond}
            hint="The sum over all the account's numbers; each number also keeps its own limit (one a second unless set otherwise)."
          />
          <TextField
            label="Bulk share"
            type="number"
            inputMode="decimal"
            min={0}
            max={1}
            step={0.05}
            value={form.bulkShare}
            onChange={(e) => set("bulkShare", e.target.value)}
            error={errors.bulkShare}
            hint={
              share
                ? `Bulk sends may use ${share} of the account rate limit (0.5 is half, 1 is all of it).`
                : "A number more than 0 and at most 1: the part of the rate limit bulk sends may use."
            }
          />
          <TextField
            label="Bulk window start"
            type="time"
            value={form.bulkWindowStart}
            onChange={(e) => set("bulkWindowStart", e.target.value)}
            error={errors.bulkWindowStart}
            hint="HH:MM in the recipient's local time."
          />
          <TextField
            label="Bulk window end"
            type="time"
            value={form.bulkWindowEnd}
            onChange={(e) => set("bulkWindowEnd", e.target.value)}
            error={errors.bulkWindowEnd}
            hint="Bulk waits outside the window; an end before the start wraps past midnight, equal times mean always."
          />
        </div>
      </Panel>

      <Panel title="Sending" description="What Parley does to the text of the account's messages.">
        <label className="flex items-start gap-3 text-sm">
          <input
            type="checkbox"
            checked={form.smartEncoding}
            onChange={(e) => set("smartEncoding", e.target.checked)}
            aria-describedby="smart-encoding-hint"
            className="mt-0.5 h-4 w-4 rounded border-slate-300"
          />
          <span>
            <span className="font-medium text-slate-900">Smart encoding</span>
            <span id="smart-encoding-hint" className="mt-0.5 block text-slate-600">
              Replace look-alike characters (curly quotes, long dashes, no-break spaces, the ellipsis…) with plain ones,
              so that one of them does not make a text cost two or three times as much. A send can still say
              smartEncoding: false.
            </span>
          </span>
        </label>
      </Panel>

      <Panel
        title="Guard rails"
        description="Protection against runaway spend and SMS pumping fraud. Sends take effect within seconds."
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Allowed countries"
            value={form.allowedCountries}
            onChange={(e) => set("allowedCountries", e.target.value)}
            placeholder="The countries of your numbers"
            autoComplete="off"
            spellCheck={false}
            error={errors.allowedCountries}
            hint="Two-letter codes separated by commas, such as US, CA, GB; * for any country. Empty: only the countries of the account's numbers. Other destinations are refused (CountryNotAllowed)."
          />
          <TextField
            label="Burst hold threshold"
            type="number"
            inputMode="numeric"
            min={0}
            step={1}
            value={form.burstHoldThreshold}
            onChange={(e) => set("burstHoldThreshold", e.target.value)}
            error={errors.burstHoldThreshold}
            hint="More messages than this within 10 minutes to one range of premium-rate numbers, or of a country none of your numbers is in, are held for review on the dashboard. 0: never hold."
          />
          <TextField
            label="Daily message limit"
            type="number"
            inputMode="numeric"
            min={0}
            step={1}
            value={form.dailyMessageLimit}
            onChange={(e) => set("dailyMessageLimit", e.target.value)}
            error={errors.dailyMessageLimit}
            hint="Messages accepted a day (the account's day, in its time zone). A warning at 80 %; sends past it are refused. 0: no limit."
          />
          <TextField
            label="Daily segment limit"
            type="number"
            inputMode="numeric"
            min={0}
            step={1}
            value={form.dailySegmentLimit}
            onChange={(e) => set("dailySegmentLimit", e.target.value)}
            error={errors.dailySegmentLimit}
            hint="The same for segments (what carriers charge by). 0: no limit."
          />
        </div>
      </Panel>

      <Panel title="Sign-in" description="How the account's users sign in to this portal.">
        <label className="flex items-start gap-3 text-sm">
          <input
            type="checkbox"
            checked={form.requireTwoFactor}
            onChange={(e) => set("requireTwoFactor", e.target.checked)}
            aria-invalid={errors.requireTwoFactor ? true : undefined}
            aria-describedby="require-two-factor-hint"
            className="mt-0.5 h-4 w-4 rounded border-slate-300"
          />
          <span>
            <span className="font-medium text-slate-900">Require two-factor sign-in</span>
            <span id="require-two-factor-hint" className="mt-0.5 block text-slate-600">
              Everyone signs in with a code from an authenticator app as well as their password. A user without it can
              only open their Profile page to set it up. Turn it on for yourself first.
            </span>
            {errors.requireTwoFactor && (
              <span role="alert" className="mt-1 block text-red-600">
                {errors.requireTwoFactor}
              </span>
            )}
          </span>
        </label>
      </Panel>

      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        {saved && (
          <Notice tone="success" className="py-2">
            Settings saved.
          </Notice>
        )}
        {Object.keys(errors).length > 0 && !save.isPending && (
          <p className="text-sm text-red-600">Nothing was saved: correct the fields marked in red.</p>
        )}
      </div>
      {refusal && <Notice tone="error">{refusal}</Notice>}
    </form>
  );
}
