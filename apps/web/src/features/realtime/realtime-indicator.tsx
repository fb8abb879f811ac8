import CloudOffOutlined from '@mui/icons-material/CloudOffOutlined';
import Box from '@mui/material/Box';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useRealtimeState } from './realtime-provider';
import { describeState } from './realtime-status';

/**
 * A small dot that tells whether live updates work: quiet when connected, amber while
 * reconnecting, and the Russian error text when the connection has failed or is suspended.
 */
export function RealtimeIndicator() {
  const rt = useRealtimeState();
  const info = rt && describeState(rt.state);
  if (!rt || !info) return null;
  const color = info.tone === 'ok' ? 'success.main' : info.tone === 'wait' ? 'warning.main' : 'error.main';
  return (
    <Tooltip title={info.text}>
      <Box
        role="status"
        aria-label={info.text}
        data-testid="realtime-indicator"
        data-state={rt.state}
        tabIndex={0}
        sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, px: 1, py: 0.5, borderRadius: 2, color, outlineColor: 'primary.main' }}
      >
        {info.tone === 'error' ? (
          <>
            <CloudOffOutlined fontSize="small" />
            <Typography variant="caption" sx={{ display: { xs: 'none', md: 'inline' }, color: 'text.secondary', maxWidth: 240, lineHeight: 1.2 }}>
              Не удалось подключиться к серверу обновлений
            </Typography>
          </>
        ) : (
          <Box component="span" sx={{ width: 8, height: 8, borderRadius: '50%', bgcolor: color }} />
        )}
      </Box>
    </Tooltip>
  );
}
