import TextField from '@mui/material/TextField';
import { useState } from 'react';

const MAX_ID = 2_147_483_647;

/** A record's number as typed: a number, undefined for an empty field, null for anything else. */
export function parseId(text: string): number | undefined | null {
  const t = text.trim();
  if (t === '') return undefined;
  if (!/^\d+$/.test(t)) return null;
  const n = Number(t);
  return n >= 1 && n <= MAX_ID ? n : null;
}

/**
 * A list's filter by a record's number (an admin's, a code owner's). What is typed stays as typed; the
 * filter changes only to a number the server takes (or to none when emptied), and anything else is
 * said under the field while the list keeps its last filter. Before, a stray letter emptied the field
 * and a 0 swapped the whole list for «Проверьте введённые данные».
 */
export function IdFilterField({ label, value, onChange, width }: { label: string; value: number | undefined; onChange(id: number | undefined): void; width: number }) {
  const [draft, setDraft] = useState({ text: value === undefined ? '' : String(value), value });
  // Changed from outside («Сбросить»): the field shows the filter.
  const text = draft.value === value ? draft.text : value === undefined ? '' : String(value);
  const bad = parseId(text) === null;
  return (
    <TextField
      size="small"
      label={label}
      value={text}
      onChange={(e) => {
        const parsed = parseId(e.target.value);
        const next = parsed === null ? value : parsed;
        setDraft({ text: e.target.value, value: next });
        if (next !== value) onChange(next);
      }}
      error={bad}
      helperText={bad ? 'id — целое число от 1' : undefined}
      slotProps={{ htmlInput: { inputMode: 'numeric' } }}
      sx={{ width }}
    />
  );
}
