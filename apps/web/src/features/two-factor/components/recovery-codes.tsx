import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DownloadIcon from '@mui/icons-material/Download';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { useState } from 'react';
import { useBrandName } from '../../../lib/public-config';
import { useUi } from '../../../lib/ui-store';

/** The ten recovery codes, shown once: copy them or save them as a .txt file. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState(false);
  const snackbar = useUi((s) => s.showSnackbar);
  const brand = useBrandName();
  // Headed with the service's name (BRAND_NAME), so the saved file says which site the codes are for.
  const text = `${brand} — резервные коды входа\nКаждый код работает один раз.\n\n${codes.join('\n')}\n`;
  // Refused (an insecure origin, some webviews) or absent, the clipboard is said to have failed, as CopyButton
  // says it: codes believed copied and never saved are lost for good.
  async function copy() {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied(true);
    } catch {
      setCopied(false);
      snackbar('Не удалось скопировать: выделите текст и скопируйте вручную', 'error');
    }
  }
  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'adena-recovery-codes.txt';
    a.click();
    URL.revokeObjectURL(url);
  }
  return (
    <Stack spacing={2}>
      <Alert severity="warning">
        Сохраните резервные коды: они показываются один раз. Если телефон потеряется, войдите с любым из них — каждый код работает только один раз.
      </Alert>
      <Box
        component="ol"
        data-testid="recovery-codes"
        sx={{ m: 0, pl: 4, display: 'grid', gridTemplateColumns: { xs: '1fr 1fr' }, columnGap: 3, fontFamily: 'monospace', fontSize: 16 }}
      >
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </Box>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
        <Button startIcon={<ContentCopyIcon />} onClick={() => void copy()}>
          {copied ? 'Скопировано' : 'Скопировать'}
        </Button>
        <Button startIcon={<DownloadIcon />} onClick={download}>
          Скачать .txt
        </Button>
      </Stack>
    </Stack>
  );
}
