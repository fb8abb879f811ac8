import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { type ReactNode, useId } from 'react';
import { useBackClosesDialog } from '../lib/telegram-back';

/**
 * SPEC.md section 9: dialogs at most 500 px wide, full screen on extra-small displays. Inside
 * Telegram the mini app's back button closes the top one through its onClose (lib/telegram-back).
 * `keepOnBackdrop`: a click beside the dialog does not close it (it holds what the operator typed);
 * Escape, the back button and the dialog's own buttons still do. `describe`: the content is the question or
 * the message itself (a confirmation, an alert), read out with the title as the dialog's description; not for a
 * form, whose labels, hints and values would all be read as one run-on description.
 */
export function AppDialog(props: {
  open: boolean;
  onClose(): void;
  title: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  testId?: string;
  keepOnBackdrop?: boolean;
  describe?: boolean;
}) {
  const theme = useTheme();
  const fullScreen = useMediaQuery(theme.breakpoints.down('sm'));
  const titleId = useId();
  const textId = useId();
  useBackClosesDialog(props.open, props.onClose);
  return (
    <Dialog
      open={props.open}
      onClose={(_e, reason) => {
        if (props.keepOnBackdrop && reason === 'backdropClick') return;
        props.onClose();
      }}
      fullScreen={fullScreen}
      aria-labelledby={titleId}
      // The question a confirm dialog asks (the amount, the nick, the server) is read out with its title.
      aria-describedby={props.describe && props.children !== undefined ? textId : undefined}
      data-testid={props.testId}
    >
      <DialogTitle id={titleId}>{props.title}</DialogTitle>
      {props.children !== undefined && <DialogContent id={textId}>{props.children}</DialogContent>}
      {props.actions && <DialogActions sx={{ px: 3, pb: 2 }}>{props.actions}</DialogActions>}
    </Dialog>
  );
}
