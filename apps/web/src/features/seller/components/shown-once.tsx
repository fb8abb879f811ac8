import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Stack from '@mui/material/Stack';
import { CopyButton } from '../../../components/copy-button';

/** A secret shown once (a new key or webhook secret), with a copy button. */
export function ShownOnce({ label, value, onClose }: { label: string; value: string; onClose: () => void }) {
  return (
    <Alert severity="warning" onClose={onClose} data-testid="shown-once">
      <Stack spacing={0.5}>
        <span>{label} — показывается один раз, сохраните его сейчас.</span>
        <Stack direction="row" sx={{ alignItems: 'center', gap: 0.5 }}>
          <Box component="code" data-testid="secret-value" sx={{ wordBreak: 'break-all', fontSize: 13, fontFamily: 'monospace' }}>
            {value}
          </Box>
          <CopyButton text={value} label="Скопировать" />
        </Stack>
      </Stack>
    </Alert>
  );
}

export const dateTime = (iso: string | null) => (iso ? new Date(iso).toLocaleString('ru-RU', { dateStyle: 'short', timeStyle: 'short' }) : '—');
