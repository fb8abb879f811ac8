import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { ApiError } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { useAckCodeIncident } from '../api/ack-code-incident';
import { useCodeIncidents } from '../api/code-incidents';
import { adenAcc, dateTime } from './code-format';

/**
 * Opened by a realtime `error_code` (or from the codes tab's notice): someone tried to activate one
 * of the user's codes that was already activated or cancelled — usually one code sold twice.
 */
export function ErrorCodeDialog() {
  const dialog = useUi((s) => s.dialog);
  const open = dialog.name === 'error_code';
  // The incident shown last stays while the dialog fades out. Keyed by it: a failed «Понятно» on one
  // incident is not shown on the next one's dialog (the acknowledgement starts afresh).
  const [last, setLast] = useState<number | null>(null);
  if (open && dialog.incidentId !== last) setLast(dialog.incidentId);
  const shown = open ? dialog.incidentId : last;
  return <IncidentDialog key={shown ?? 'none'} open={open} incidentId={shown} />;
}

function IncidentDialog({ open, incidentId }: { open: boolean; incidentId: number | null }) {
  const close = useUi((s) => s.closeDialog);
  const incidents = useCodeIncidents(open);
  const ack = useAckCodeIncident();
  const incident = open ? incidents.data?.find((i) => i.id === incidentId) : undefined;
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Повторная активация вашего кода"
      testId="error-code-dialog"
      actions={
        <>
          <Button onClick={close}>Позже</Button>
          <Button
            variant="contained"
            disabled={!open || ack.isPending || Boolean(incident?.acknowledged_at)}
            onClick={() => {
              if (!open || incidentId === null) return;
              const id = incidentId;
              // Closes only this incident's dialog: after «Позже», the answer leaves whatever is open now alone.
              ack.mutate(id, {
                onSuccess: () => {
                  const now = useUi.getState().dialog;
                  if (now.name === 'error_code' && now.incidentId === id) close();
                },
              });
            }}
          >
            Понятно
          </Button>
        </>
      }
    >
      <Stack spacing={2}>
        {incident ? (
          <>
            <Typography>
              Кто-то пытался активировать ваш код <b style={{ overflowWrap: 'anywhere' }}>{incident.sert}</b> на {adenAcc(incident.nominal)} (
              {incident.gamesserver}), но он уже {incident.code_status === 'cancelled' ? 'отменён' : 'активирован'}.
            </Typography>
            <Typography variant="body2" color="textSecondary">
              Обычно так бывает, когда один код передали двум покупателям. Проверьте, кому вы его отправляли. Попытка была{' '}
              {dateTime.format(new Date(incident.created_at))}.
            </Typography>
          </>
        ) : incidents.isError ? (
          <Alert severity="error">Не удалось загрузить подробности. Попробуйте позже.</Alert>
        ) : (
          <Skeleton variant="rounded" height={72} />
        )}
        {ack.isError && (
          // The server's own reason when it gave one (too many requests, the incident not found), else a lost answer's.
          <Alert severity="error">{ack.error instanceof ApiError ? ack.error.message : 'Не удалось отметить инцидент. Попробуйте ещё раз.'}</Alert>
        )}
      </Stack>
    </AppDialog>
  );
}
