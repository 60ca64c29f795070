"use client";

import { useState, type FormEvent } from "react";
import { useAddCarrier, useUpdateCarrier } from "@/components/data/use-carriers";
import { Button } from "@/components/ui/button";
import { SelectField, TextAreaField, TextField } from "@/components/ui/field";
import { Notice } from "@/components/ui/notice";
import { useFieldErrors } from "@/components/ui/use-field-errors";
import {
  CONNECTION_KINDS,
  CONNECTION_TYPES,
  connectionNameField,
  readConnectionValues,
  type ConnectionField,
  type ConnectionType,
} from "@/lib/carriers/connections/connection-kinds";
import type { ConnectionView } from "@/lib/carriers/connections/manage-connections";

// The form of one connection: "Add carrier" (a type, a name, the kind's fields) or "Edit" (the same, the type fixed).
// It checks with the kind table the server checks with, so an error sits beside its field before anything is sent;
// the server's refusals name the field (data.field) and sit there too. Secrets are write-only: an edit shows only the
// saved value's masked hint, and a secret left empty keeps it.

const DEFAULT_TYPE: ConnectionType = "twilio";

function startingValues(connection?: ConnectionView): Record<string, string> {
  const values: Record<string, string> = {};
  if (!connection) return values;
  for (const field of CONNECTION_KINDS[connection.type].fields)
    if (!field.secret && connection.settings[field.key] !== undefined)
      values[field.key] = String(connection.settings[field.key]);
  return values;
}

function FieldInput({
  field,
  value,
  error,
  savedHint,
  onChange,
}: {
  field: ConnectionField;
  value: string;
  error?: string;
  /** The saved secret's masked hint (an edit): the input stays empty and says so. */
  savedHint?: string;
  onChange: (value: string) => void;
}) {
  const label = field.label;
  const placeholder = savedHint ? `${savedHint} saved; leave empty to keep` : undefined;
  const hint = field.help ?? (field.required ? undefined : "Optional.");
  if (field.format === "multiline")
    return (
      <TextAreaField
        label={label}
        name={field.key}
        rows={5}
        spellCheck={false}
        className="sm:col-span-2"
        value={value}
        placeholder={placeholder}
        hint={hint}
        error={error}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  if (field.format === "choice")
    return (
      <SelectField
        label={label}
        name={field.key}
        value={value}
        hint={hint}
        error={error}
        onChange={(event) => onChange(event.target.value)}
      >
        {field.required ? null : <option value="">Default</option>}
        {field.choices?.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </SelectField>
    );
  return (
    <TextField
      label={label}
      name={field.key}
      type={field.secret ? "password" : "text"}
      inputMode={field.format === "integer" ? "numeric" : undefined}
      autoComplete={field.secret ? "new-password" : "off"}
      spellCheck={false}
      value={value}
      placeholder={placeholder}
      hint={hint}
      error={error}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}

export function ConnectionForm({
  connection,
  onDone,
  onCancel,
}: {
  /** The connection to change; without it, the form adds one. */
  connection?: ConnectionView;
  onDone: (saved: ConnectionView) => void;
  onCancel: () => void;
}) {
  const [type, setType] = useState<ConnectionType>(connection?.type ?? DEFAULT_TYPE);
  const [name, setName] = useState(connection?.name ?? "");
  const [values, setValues] = useState<Record<string, string>>(() => startingValues(connection));
  const kind = CONNECTION_KINDS[type];
  const fieldKeys = ["type", "name", ...kind.fields.map((f) => f.key)];
  const { errors, setErrors, refused, unplaced } = useFieldErrors({ fields: fieldKeys });
  const callbacks = { onSuccess: ({ carrier }: { carrier: ConnectionView }) => onDone(carrier), onError: refused };
  const add = useAddCarrier(callbacks);
  const update = useUpdateCarrier(connection?.id ?? "", callbacks);
  const save = connection ? update : add;

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: Record<string, string> = {};
    const parsedName = connectionNameField.safeParse(name);
    if (!parsedName.success) found.name = parsedName.error.issues[0]!.message;
    // An edit keeps saved secrets left empty; a setting, though, is sent as shown (empty clears an optional one).
    const existing = connection ? { settings: {}, credentialKeys: Object.keys(connection.credentials) } : undefined;
    Object.assign(found, readConnectionValues(type, values, existing).errors);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const fields: Record<string, string> = {};
    for (const field of kind.fields) {
      const value = values[field.key] ?? "";
      if (value.trim() !== "" || (connection && !field.secret)) fields[field.key] = value;
    }
    if (connection) update.mutate({ name: parsedName.data, fields });
    else add.mutate({ type, name: parsedName.data!, fields });
  }

  const refusal = unplaced(save.error);
  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={connection ? `Edit ${connection.name}` : "Add carrier"}
      className="space-y-4"
    >
      <div className="grid gap-4 sm:grid-cols-2">
        {connection ? (
          <div>
            <p className="block text-sm font-medium text-slate-700">Type</p>
            <p className="mt-1 py-2 text-sm text-slate-900">{kind.label}</p>
          </div>
        ) : (
          <SelectField
            label="Type"
            name="type"
            value={type}
            error={errors.type}
            onChange={(event) => {
              setType(event.target.value as ConnectionType);
              setValues({});
              setErrors({});
            }}
          >
            {CONNECTION_TYPES.map((t) => (
              <option key={t} value={t}>
                {CONNECTION_KINDS[t].label}
              </option>
            ))}
          </SelectField>
        )}
        <TextField
          label="Name"
          name="name"
          autoComplete="off"
          placeholder="twilio-main"
          value={name}
          error={errors.name}
          hint="How numbers and the CLI name it: letters, digits, spaces, dots, dashes, underscores."
          onChange={(event) => setName(event.target.value)}
        />
        {kind.fields.map((field) => (
          <FieldInput
            key={`${type}-${field.key}`}
            field={field}
            value={values[field.key] ?? ""}
            error={errors[field.key]}
            savedHint={field.secret ? connection?.credentials[field.key] : undefined}
            onChange={(value) => setValues((current) => ({ ...current, [field.key]: value }))}
          />
        ))}
      </div>
      {kind.fields.every((field) => !field.required) ? (
        <p className="text-sm text-slate-600">
          Nothing to set: the simulator needs no address or credentials (the MMS limits are optional).
        </p>
      ) : null}
      {refusal ? <Notice tone="error">{refusal}</Notice> : null}
      <div className="flex gap-2">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        <Button variant="secondary" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
