import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { AppDialog } from './app-dialog';

/**
 * «Are you sure?» before an action that cannot be taken back (removing a passkey, revoking a key, a new
 * webhook secret): the consequence in one paragraph, «Отмена» and the action's own word. `danger` paints
 * the action red when it removes something.
 */
export function ConfirmDialog(props: {
  open: boolean;
  onClose(): void;
  onConfirm(): void;
  title: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <AppDialog
      open={props.open}
      onClose={props.onClose}
      title={props.title}
      testId={props.testId}
      actions={
        <>
          <Button onClick={props.onClose}>Отмена</Button>
          <Button color={props.danger ? 'error' : 'primary'} variant="contained" onClick={props.onConfirm}>
            {props.confirmLabel}
          </Button>
        </>
      }
    >
      <Typography>{props.children}</Typography>
    </AppDialog>
  );
}
