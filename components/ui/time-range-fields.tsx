import { TextField } from "./field";
import type { FieldErrors } from "./field-errors";

/** "From" and "To" of a list's filter bar: datetime-local values in the viewer's zone, full width on a phone. */
export function TimeRangeFields({
  since,
  until,
  onSince,
  onUntil,
  errors,
}: {
  since: string;
  until: string;
  onSince: (value: string) => void;
  onUntil: (value: string) => void;
  errors: FieldErrors;
}) {
  return (
    <>
      <TextField
        label="From"
        type="datetime-local"
        className="col-span-2 sm:col-span-1"
        value={since}
        onChange={(e) => onSince(e.target.value)}
        error={errors.since}
      />
      <TextField
        label="To"
        type="datetime-local"
        className="col-span-2 sm:col-span-1"
        value={until}
        onChange={(e) => onUntil(e.target.value)}
        error={errors.until}
      />
    </>
  );
}
