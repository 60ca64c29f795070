"use client";

import { useState, type FormEvent } from "react";
import { useSaveKeywordReplies, type OptSettings } from "@/components/data/use-opt-outs";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TextAreaField } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/page-header";
import { FOOTER_MAX, REPLY_MAX, optSettingsInput } from "@/lib/opt/opt-schemas";

const FIELDS = [
  {
    name: "stopReply",
    label: "STOP reply",
    max: REPLY_MAX,
    hint: "Sent when a phone texts STOP (or another opt-out keyword).",
  },
  { name: "startReply", label: "START reply", max: REPLY_MAX, hint: "Sent when a phone texts START to opt back in." },
  { name: "helpReply", label: "HELP reply", max: REPLY_MAX, hint: "Sent when a phone texts HELP or INFO." },
  {
    name: "footer",
    label: "Footer",
    max: FOOTER_MAX,
    hint: "Added to the first message to a number (optLogic: true), and again after 30 days.",
  },
] as const;

type Field = (typeof FIELDS)[number]["name"];

function textsOf(settings: OptSettings): Record<Field, string> {
  return {
    stopReply: settings.stopReply,
    startReply: settings.startReply,
    helpReply: settings.helpReply,
    footer: settings.footer,
  };
}

/** The automatic replies to STOP / START / HELP and the footer: the defaults until changed, and back to them. */
export function KeywordRepliesForm({ initial }: { initial: OptSettings }) {
  const [settings, setSettings] = useState(initial);
  const [values, setValues] = useState(textsOf(initial));
  const { errors, check, refused } = useFieldErrors();
  const [notice, setNotice] = useState<{ tone: "success" | "info"; text: string } | null>(null);

  const save = useSaveKeywordReplies({
    onSuccess: ({ settings: saved }) => {
      setSettings(saved);
      setValues(textsOf(saved));
      setNotice({ tone: "success", text: "Saved. The next keyword replies use these texts." });
    },
    onError: refused,
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setNotice(null);
    // Only what changed is sent; a text equal to its default is stored as "the default" (null), so it follows a
    // rename of the account like the default does.
    const body: Record<string, string | null> = {};
    for (const { name } of FIELDS) {
      const value = values[name].trim();
      const inUse = settings[name];
      const isDefault = value === settings.defaults[name];
      if (isDefault && settings.custom[name]) body[name] = null;
      else if (!isDefault && value !== inUse) body[name] = value;
    }
    const parsed = optSettingsInput.safeParse(body);
    if (!check(parsed)) return;
    if (Object.keys(parsed.data).length === 0) {
      setNotice({ tone: "info", text: "Nothing changed." });
      return;
    }
    save.mutate(parsed.data);
  }

  return (
    <Panel
      title="Keyword replies and footer"
      description="Each keyword is answered from the number the phone wrote to. Until you change them, the defaults name your account."
    >
      <form onSubmit={submit} noValidate className="space-y-5">
        {FIELDS.map((field) => {
          const value = values[field.name];
          const isDefault = value.trim() === settings.defaults[field.name];
          return (
            <div key={field.name}>
              <TextAreaField
                label={field.label}
                name={field.name}
                rows={field.name === "footer" ? 2 : 3}
                value={value}
                onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.value }))}
                error={errors[field.name]}
                hint={`${field.hint} ${value.trim().length}/${field.max} characters.`}
              />
              <div className="mt-1.5 flex flex-wrap items-center gap-2">
                {isDefault ? (
                  <Badge tone="gray">Default</Badge>
                ) : (
                  <>
                    <Badge tone="indigo">
                      {settings.custom[field.name] && value === settings[field.name] ? "Custom" : "Changed"}
                    </Badge>
                    <Button
                      variant="ghost"
                      size="sm"
                      onClick={() => setValues((v) => ({ ...v, [field.name]: settings.defaults[field.name] }))}
                      aria-label={`Use the default ${field.label}`}
                    >
                      Use default
                    </Button>
                  </>
                )}
              </div>
            </div>
          );
        })}
        {errors[""] && <Notice tone="error">{errors[""]}</Notice>}
        {notice && <Notice tone={notice.tone}>{notice.text}</Notice>}
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
      </form>
    </Panel>
  );
}
