import ContentCopy from '@mui/icons-material/ContentCopy';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import { useState } from 'react';
import { useUi } from '../lib/ui-store';

/**
 * Copies the text and says so; when the clipboard is refused (an insecure origin, some webviews) it says
 * that instead, so nobody pastes whatever the clipboard held before (a previous code) to a buyer.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const snackbar = useUi((s) => s.showSnackbar);
  return (
    <Tooltip title={copied ? 'Скопировано' : label}>
      <IconButton
        aria-label={label}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          } catch {
            snackbar('Не удалось скопировать: выделите текст и скопируйте вручную', 'error');
          }
        }}
      >
        <ContentCopy fontSize="small" />
      </IconButton>
    </Tooltip>
  );
}
