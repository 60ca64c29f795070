"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { TextAreaField, TextField } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { localInputToIso } from "@/components/ui/local-time-input";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { alphabetName, countForComposer } from "@/components/conversations/segment-counter";
import { CAMPAIGN_VARIABLES, campaignInputSchema } from "@/lib/campaigns/campaign-schema";
import { useCreateCampaign } from "./use-campaigns";

const FIELDS = ["name", "fromNumbers", "body", "audience", "sendAt"] as const;

/** The phone numbers of a pasted list or a CSV file: the first cell of each line that has digits. */
export function numbersOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) =>
      line
        .split(/[,;\t]/)[0]!
        .trim()
        .replace(/^"|"$/g, ""),
    )
    .filter((cell) => /\d{6,}/.test(cell.replace(/[\s().-]/g, "")));
}

export function CampaignForm({ accountNumbers }: { accountNumbers: string[] }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [from, setFrom] = useState<string[]>(accountNumbers.slice(0, 1));
  const [audienceKind, setAudienceKind] = useState<"tag" | "numbers">("tag");
  const [tag, setTag] = useState("");
  const [numbers, setNumbers] = useState("");
  const [body, setBody] = useState("");
  const [later, setLater] = useState(false);
  const [sendAt, setSendAt] = useState("");
  const { errors, check, refused, unplaced } = useFieldErrors({ fields: FIELDS });
  const create = useCreateCampaign({ onSuccess: (c) => router.push(`/campaigns/${c.id}`), onError: refused });
  const counter = countForComposer(body);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = {
      name,
      fromNumbers: from,
      body,
      audience: audienceKind === "tag" ? { tag } : { numbers: numbersOf(numbers) },
      sendAt: later ? (localInputToIso(sendAt) ?? "") : null,
    };
    if (!check(campaignInputSchema.safeParse(input))) return;
    create.mutate(input);
  }

  if (accountNumbers.length === 0) {
    return <Notice tone="warning">The account has no numbers yet: add one on the Numbers page first.</Notice>;
  }
  return (
    <Panel title="Campaign" description="Every message is stored when you start it; the worker sends them as bulk.">
      <form onSubmit={submit} noValidate className="max-w-3xl space-y-5">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.name} />

        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Send from</legend>
          <p className="text-xs text-slate-600">Several numbers share the phones in turn.</p>
          <div className="mt-2 flex flex-wrap gap-x-5 gap-y-2">
            {accountNumbers.map((n) => (
              <label key={n} className="flex items-center gap-2 text-sm font-mono">
                <input
                  type="checkbox"
                  checked={from.includes(n)}
                  onChange={(e) => setFrom(e.target.checked ? [...from, n] : from.filter((x) => x !== n))}
                  className="h-4 w-4 rounded border-slate-300"
                />
                +{n.replace(/^\+/, "")}
              </label>
            ))}
          </div>
          {errors.fromNumbers && (
            <p role="alert" className="mt-1 text-sm text-red-600">
              {errors.fromNumbers}
            </p>
          )}
        </fieldset>

        <fieldset>
          <legend className="text-sm font-medium text-slate-800">Audience</legend>
          <div className="mt-2 flex flex-wrap gap-x-5 gap-y-2 text-sm">
            <label className="flex items-center gap-2">
              <input type="radio" checked={audienceKind === "tag"} onChange={() => setAudienceKind("tag")} />
              Contacts with a tag
            </label>
            <label className="flex items-center gap-2">
              <input type="radio" checked={audienceKind === "numbers"} onChange={() => setAudienceKind("numbers")} />A
              list of numbers
            </label>
          </div>
          <div className="mt-3">
            {audienceKind === "tag" ? (
              <TextField
                label="Tag"
                value={tag}
                onChange={(e) => setTag(e.target.value)}
                placeholder="e.g. vip"
                error={errors.audience}
                hint="Every contact with this tag (Contacts page)."
              />
            ) : (
              <>
                <TextAreaField
                  label="Numbers"
                  rows={5}
                  value={numbers}
                  onChange={(e) => setNumbers(e.target.value)}
                  placeholder={"+14155550123\n+14155550124"}
                  error={errors.audience}
                  hint={`One a line, or a CSV file's first column: ${numbersOf(numbers).length} numbers.`}
                />
                <label className="mt-2 block text-xs font-medium text-slate-700">
                  CSV file
                  <input
                    type="file"
                    accept=".csv,text/csv,text/plain"
                    className="mt-1 block text-xs"
                    onChange={async (e) => {
                      const file = e.target.files?.[0];
                      if (file) setNumbers(await file.text());
                    }}
                  />
                </label>
              </>
            )}
          </div>
        </fieldset>

        <TextAreaField
          label="Message"
          rows={4}
          value={body}
          onChange={(e) => setBody(e.target.value)}
          error={errors.body}
          hint={
            <>
              {counter.characters} characters · {counter.numSegments}{" "}
              {counter.numSegments === 1 ? "segment" : "segments"} · {alphabetName(counter.encoding)}. Variables:{" "}
              {CAMPAIGN_VARIABLES.map((v) => `{{${v}}}`).join(", ")}. Opted-out phones are left out; the footer of
              opt-out processing is not added.
            </>
          }
        />

        <fieldset>
          <legend className="text-sm font-medium text-slate-800">When</legend>
          <div className="mt-2 flex flex-wrap items-center gap-x-5 gap-y-2 text-sm">
            <label className="flex items-center gap-2">
              <input type="radio" checked={!later} onChange={() => setLater(false)} />
              Now
            </label>
            <label className="flex items-center gap-2">
              <input type="radio" checked={later} onChange={() => setLater(true)} />
              Later
            </label>
          </div>
          {later && (
            <TextField
              className="mt-3 max-w-xs"
              label="Send at"
              type="datetime-local"
              value={sendAt}
              onChange={(e) => setSendAt(e.target.value)}
              error={errors.sendAt}
              hint="Your time. Between a minute and 35 days ahead."
            />
          )}
          <p className="mt-2 text-xs text-slate-600">
            Either way the messages leave only inside the account&apos;s bulk window, in each phone&apos;s time zone.
          </p>
        </fieldset>

        {unplaced(create.error) && <Notice tone="error">{unplaced(create.error)}</Notice>}
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Starting…" : later ? "Schedule campaign" : "Start campaign"}
        </Button>
      </form>
    </Panel>
  );
}
