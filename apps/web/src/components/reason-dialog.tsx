import { errorMessage } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useFormErrors } from '../hooks/use-form-errors';
import { ApiError } from '../lib/api-client';
import { needsStepUp } from '../lib/step-up';
import { UNTIL_CLOSED, useUi } from '../lib/ui-store';
import { AppDialog } from './app-dialog';

/**
 * An operator's confirmation that needs a written reason or note (reject a request, cancel a code,
 * block a user, close an incident). The server's 422 lands under the field (`field` names it); any
 * other refusal (a 409 on `id`: another operator decided the request first) is said above it, so the
 * operator sees why the dialog stayed open. `submit` resolves when the action is done; the dialog
 * then clears itself and closes. A click beside it never drops a typed reason. An answer that comes
 * after the dialog was closed, or opened for another item, acts on nothing on screen: a refusal is said
 * in an alert that names its item (`refusedTitle`), and the confirm button waits only for its own
 * opening's call. A step-up refusal (the second-factor prompt cancelled) shows nothing: the dialog keeps the reason.
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
  /** «Отмена», or the action done with the dialog on screen: what goes with the reason (`extra`) is cleared too. */
  onCancel?(): void;
  submit(text: string): Promise<unknown>;
  /** Said when the answer comes after the dialog was closed and is a refusal: «Заявка №7 не отклонена». */
  refusedTitle: string;
}) {
  const alert = useUi((s) => s.alert);
  // Each opening (opened, or showing another item) gets a number; an answer acts only on its own.
  // Left (the operator went on to another card), the dialog is shown no more: a late refusal is alerted.
  const openings = useRef({ n: 0, open: false, title: '', mounted: true });
  const o = openings.current;
  if (props.open && (!o.open || o.title !== props.title)) o.n += 1;
  o.open = props.open;
  o.title = props.title;
  const opening = o.n;
  const stillShown = (n: number) => openings.current.mounted && openings.current.open && openings.current.n === n;
  useEffect(() => {
    openings.current.mounted = true;
    return () => {
      openings.current.mounted = false;
    };
  }, []);
  const [sending, setSending] = useState<number | null>(null);
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
    props.onCancel?.();
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
            disabled={sending === opening}
            onClick={() => {
              f.clear();
              const about = props.title;
              const refused = props.refusedTitle;
              setSending(opening);
              props
                .submit(text)
                .then(
                  () => {
                    if (stillShown(opening)) close();
                    else setDraft((d) => (d.about === about ? { about, text: '' } : d));
                  },
                  (e: unknown) => {
                    // A second-factor prompt the operator cancelled is no error: the dialog stays as it was, for another try.
                    if (stillShown(opening)) {
                      if (!needsStepUp(e)) f.fromError(e, [field]);
                    } else alert(refused, [e instanceof ApiError ? e.message : errorMessage('INTERNAL')], UNTIL_CLOSED);
                  },
                )
                .finally(() => setSending((n) => (n === opening ? null : n)));
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
