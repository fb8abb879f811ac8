import TextField from '@mui/material/TextField';

/** «Код из приложения или резервный»: the code a TOTP user's own calls (turning it off, new recovery codes) ask for. */
export function SecondFactorCodeField({ value, onChange, error }: { value: string; onChange(code: string): void; error?: string }) {
  return (
    <TextField label="Код из приложения или резервный" value={value} onChange={(e) => onChange(e.target.value)} autoFocus error={Boolean(error)} helperText={error} />
  );
}
