import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { type ReactNode, useRef } from 'react';
import { AppDialog } from './app-dialog';

/**
 * «Are you sure?» before an action that cannot be taken back (removing a passkey, revoking a key, a new
 * webhook secret): the consequence in one paragraph, «Отмена» and the action's own word. `danger` paints
 * the action red when it removes something.
 *
 * The action's button fires once per opening: a double click, or a click while the dialog fades out
 * (MUI's buttons still take clicks then), does not send the call twice; the second DELETE of a webhook
 * answered 404 and the screen said it was not removed. `pending` (the call running) also turns it off.
 * Every user closes the dialog on confirm; it takes the action again once opened again.
 */
export function ConfirmDialog(props: {
  open: boolean;
  onClose(): void;
  onConfirm(): void;
  title: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  pending?: boolean;
  testId?: string;
  children: ReactNode;
}) {
  // Set by the first confirm of an opening; a new opening (open again after closed) clears it.
  const fired = useRef(false);
  const wasOpen = useRef(props.open);
  if (props.open && !wasOpen.current) fired.current = false;
  wasOpen.current = props.open;
  const confirm = () => {
    if (fired.current || !props.open || props.pending) return;
    fired.current = true;
    props.onConfirm();
  };
  return (
    <AppDialog
      open={props.open}
      onClose={props.onClose}
      title={props.title}
      testId={props.testId}
      describe
      actions={
        <>
          <Button onClick={props.onClose}>Отмена</Button>
          <Button color={props.danger ? 'error' : 'primary'} variant="contained" onClick={confirm} disabled={Boolean(props.pending)}>
            {props.confirmLabel}
          </Button>
        </>
      }
    >
      <Typography>{props.children}</Typography>
    </AppDialog>
  );
}
