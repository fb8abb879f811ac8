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
 * then clears itself and closes. A click beside it never drops a typed reason.
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
  // The typed reason belongs to what the dialog is about (its title names the request, code, incident
  // or user): opened for another one, it starts empty, so a reason is never sent for the wrong item.
  const [draft, setDraft] = useState({ about: props.title, text: '' });
  const text = draft.about === props.title ? draft.text : '';
  const setText = (value: string) => setDraft({ about: props.title, text: value });
  const f = useFormErrors();
  const field = props.field ?? 'reason';
  // Escape (or Telegram's back button) only hides the dialog: the typed reason waits for the next
  // opening for the same item. «Отмена» and a successful submit clear it.
  const hide = () => {
    f.clear();
    props.onClose();
  };
  const close = () => {
    setText('');
    hide();
  };
  const error = f.fieldError(field);
  return (
    <AppDialog
      open={props.open}
      onClose={hide}
      keepOnBackdrop={text !== ''}
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
