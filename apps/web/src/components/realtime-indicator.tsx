import CloudOffOutlined from '@mui/icons-material/CloudOffOutlined';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useRealtimeState } from '../lib/realtime-state';
import { describeState, REALTIME_OFFLINE_TEXT } from './realtime-status';
import { Hint } from './hint';

/**
 * Whether live updates work: a green dot when connected, amber while reconnecting, and the
 * Russian error text when the connection has failed or is suspended, or the browser is offline.
 * The full text is in the tooltip and the accessible name; `withText` adds a short caption beside
 * the dot (the error caption shows from the md breakpoint even without it).
 */
export function RealtimeIndicator({ withText = false }: { withText?: boolean }) {
  const rt = useRealtimeState();
  const info = rt && describeState(rt.state, rt.offline);
  if (!rt || !info) return null;
  const color = info.tone === 'ok' ? 'success.main' : info.tone === 'wait' ? 'warning.main' : 'error.main';
  // Offline the page's own notice says «Нет связи»; the header does not repeat it in words.
  const caption = withText ? info.short : info.tone === 'error' && info.text !== REALTIME_OFFLINE_TEXT ? 'Не удалось подключиться к серверу обновлений' : null;
  return (
    <Hint title={info.text}>
      <Box
        role="status"
        aria-label={info.text}
        data-testid="realtime-indicator"
        data-state={rt.state}
        tabIndex={0}
        sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, py: 0.25, borderRadius: 2, color, outlineColor: 'primary.main' }}
      >
        {info.tone === 'error' ? (
          <CloudOffOutlined fontSize="small" />
        ) : (
          <Box component="span" sx={{ width: 8, height: 8, borderRadius: '50%', bgcolor: color, flexShrink: 0 }} />
        )}
        {caption && (
          <Typography
            variant="caption"
            sx={{ display: withText ? 'inline' : { xs: 'none', md: 'inline' }, color: 'text.secondary', maxWidth: 240, lineHeight: 1.2 }}
          >
            {caption}
          </Typography>
        )}
      </Box>
    </Hint>
  );
}
