import { errorMessage, zodIssuesToErrors } from '@adena/contract/lite';
import { useState } from 'react';
import type { z } from 'zod';
import { ApiError } from '../lib/api-client';

/**
 * Field errors shown under inputs: first from the contract's own schema in the browser, then
 * from the server's 422 `errors`, so both sides speak with the same Russian messages.
 */
export function useFormErrors() {
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [formError, setFormError] = useState<string | null>(null);
  return {
    errors,
    formError,
    fieldError: (name: string) => errors[name]?.[0],
    clear() {
      setErrors({});
      setFormError(null);
    },
    /** Parses with the schema; on failure shows the errors and returns null. */
    validate<S extends z.ZodType>(schema: S, values: unknown): z.output<S> | null {
      const r = schema.safeParse(values);
      if (r.success) return r.data;
      setErrors(zodIssuesToErrors(r.error.issues));
      return null;
    },
    /**
     * Shows a failed call's errors; `shown`: the fields this form renders, so an error on another
     * field (say `gamesserver_id` of a server just switched off) is said above the form, not lost.
     */
    fromError(err: unknown, shown?: readonly string[]) {
      if (err instanceof ApiError) {
        const fields = err.fieldErrors;
        setErrors(fields);
        const elsewhere = shown ? Object.entries(fields).flatMap(([k, v]) => (k === '_' || shown.includes(k) ? [] : v)) : [];
        const general = fields._?.[0] ?? elsewhere[0];
        setFormError(Object.keys(fields).some((k) => k !== '_') && !general ? null : (general ?? err.message));
      } else {
        setFormError(errorMessage('INTERNAL'));
      }
    },
  };
}
