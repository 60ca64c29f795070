"use client";

import { useState, type FormEvent } from "react";
import { useAddNumber } from "@/components/data/use-numbers";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import { formatNumber } from "@/components/ui/format-time";
import { Notice } from "@/components/ui/notice";
import { provisionNumberInput } from "@/lib/numbers/number-schema";
import { CarrierSelect } from "./carrier-select";

const FIELDS = ["number", "label", "carrier"];

/** "Add number": checked with the schema the route parses with, so each error shows beside its field. */
export function AddNumberForm({ carriers }: { carriers: string[] }) {
  const [number, setNumber] = useState("");
  const [label, setLabel] = useState("");
  // "" is the deployment's default connection; it stays chosen for the next number.
  const [carrier, setCarrier] = useState("");
  const { errors, setErrors, check, refused, unplaced } = useFieldErrors({ fields: FIELDS, sentence: false });
  const add = useAddNumber({
    onSuccess: () => {
      setNumber("");
      setLabel("");
      setErrors({});
    },
    onError: refused,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = provisionNumberInput.safeParse({
      number,
      label: label.trim() === "" ? undefined : label,
      carrier: carrier === "" ? undefined : carrier,
    });
    if (check(parsed)) add.mutate(parsed.data);
  }

  const refusal = unplaced(add.error);
  return (
    <form onSubmit={submit} noValidate className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_minmax(0,12rem)_auto] sm:items-start">
        <TextField
          label="Number"
          name="number"
          inputMode="tel"
          autoComplete="off"
          placeholder="+14155550100"
          value={number}
          onChange={(event) => setNumber(event.target.value)}
          error={errors.number}
          hint="Country code and digits, with or without +."
        />
        <TextField
          label="Label"
          name="label"
          autoComplete="off"
          placeholder="Support line"
          value={label}
          onChange={(event) => setLabel(event.target.value)}
          error={errors.label}
          hint="Optional: what the number is for."
        />
        <CarrierSelect carriers={carriers} value={carrier} onChange={setCarrier} error={errors.carrier} />
        <Button type="submit" disabled={add.isPending} className="sm:mt-6">
          {add.isPending ? "Adding…" : "Add number"}
        </Button>
      </div>
      {refusal ? <Notice tone="error">{refusal}</Notice> : null}
      {add.isSuccess ? (
        <Notice tone="success">
          {add.data.created
            ? `${formatNumber(add.data.number.number)} is provisioned: the account can send from it now.`
            : `${formatNumber(add.data.number.number)} is this account's already; nothing changed.`}
        </Notice>
      ) : null}
    </form>
  );
}
