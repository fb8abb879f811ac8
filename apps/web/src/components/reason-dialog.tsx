import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { type ReactNode, useState } from 'react';
import { useFormErrors } from '../hooks/use-form-errors';
import { AppDialog } from './app-dialog';

/**
 * An operator's confirmation that needs a written reason or note (reject a request, cancel a code,
 * block a user, close an incident). The server's 422 lands under the field (`field` names it); any
 * other refusal (a 409 on `id`: another operator decided the request first) is said above it, so the
 * operator sees why the dialog stayed open. `submit` resolves when the action is done; the dialog
 * then clears itself and closes.
 */
export function ReasonDialog(props: {
  open: boolean;
  onClose(): void;
  title: string;
  testId: string;
  explanation: ReactNode;
  label: string;
  field?: string;
  cancelLabel?: string;
  confirmLabel: string;
  danger?: boolean;
  minRows?: number;
  /** Shown under the field (a choice that goes with the reason). */
  extra?: ReactNode;
  pending: boolean;
  submit(text: string): Promise<unknown>;
}) {
  const [text, setText] = useState('');
  const f = useFormErrors();
  const field = props.field ?? 'reason';
  const close = () => {
    setText('');
    f.clear();
    props.onClose();
  };
  const error = f.fieldError(field);
  return (
    <AppDialog
      open={props.open}
      onClose={close}
      title={props.title}
      testId={props.testId}
      actions={
        <>
          <Button onClick={close}>{props.cancelLabel ?? 'Отмена'}</Button>
          <Button
            color={props.danger ? 'error' : 'primary'}
            variant="contained"
            disabled={props.pending}
            onClick={() => {
              f.clear();
              props.submit(text).then(close, (e: unknown) => f.fromError(e, [field]));
            }}
          >
            {props.confirmLabel}
          </Button>
        </>
      }
    >
      <Stack spacing={2} sx={{ pt: 1 }}>
        {f.formError && <Alert severity="error">{f.formError}</Alert>}
        <Typography component="div">{props.explanation}</Typography>
        <TextField
          label={props.label}
          value={text}
          onChange={(e) => setText(e.target.value)}
          error={Boolean(error)}
          helperText={error}
          autoFocus
          multiline
          minRows={props.minRows}
        />
        {props.extra}
      </Stack>
    </AppDialog>
  );
}
