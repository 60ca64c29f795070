"use client";

import type { OptedOutPage, OptSettings, TrailPage } from "@/components/data/use-opt-outs";
import { KeywordRepliesForm } from "./keyword-replies-form";
import { ManualOptForm } from "./manual-opt-form";
import { OptedOutList } from "./opted-out-list";
import { OptTrail } from "./opt-trail";

/** The opt-outs page: act on a number, see who is out, read (and export) the trail, edit the keyword replies. */
export function OptOutsScreen(props: { trail: TrailPage; optedOut: OptedOutPage; settings: OptSettings }) {
  return (
    <div className="space-y-6">
      <div className="grid gap-6 lg:grid-cols-[3fr_2fr]">
        <ManualOptForm />
        <OptedOutList initial={props.optedOut} />
      </div>
      <OptTrail initial={props.trail} />
      <KeywordRepliesForm initial={props.settings} />
    </div>
  );
}
