import { useState } from "react";
import type { z } from "zod";
import { serverFieldErrors, zodFieldErrors, type FieldErrors, type Wording } from "./field-errors";

/**
 * A form's errors beside its fields: the schema's on submit, the server's on a refusal. With `fields` (the fields the
 * form shows), a refusal none of them can show stays out of `errors`: the form puts `unplaced(mutation.error)` in a
 * Notice. Without, a refusal goes beside any field the server names, or under "".
 */
export function useFieldErrors(options: Wording & { fields?: readonly string[] } = {}) {
  const [errors, setErrors] = useState<FieldErrors>({});
  return {
    errors,
    setErrors,
    /** Shows the schema's problems (and drops the old ones): true when there is none, so the form may be sent. */
    check<T>(result: z.ZodSafeParseResult<T>): result is z.ZodSafeParseSuccess<T> {
      const found = zodFieldErrors(result, options);
      setErrors(found);
      return result.success && Object.keys(found).length === 0;
    },
    /** Shows a refusal beside the field it names (see above for one that names none of the form's). */
    refused(error: unknown) {
      const found = serverFieldErrors(error, options);
      setErrors(options.fields && found[""] !== undefined ? {} : found);
    },
    /** A refusal's words when no field of the form can show it (for a Notice), else undefined. */
    unplaced(error: unknown): string | undefined {
      return error ? serverFieldErrors(error, options)[""] : undefined;
    },
  };
}
