import Alert from '@mui/material/Alert';
import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';

export const useOnline = () => useSyncExternalStore(onlineManager.subscribe.bind(onlineManager), () => onlineManager.isOnline());

/** Offline the page shows the last known balances; this says so, so nobody takes them as live. */
export function OfflineNotice() {
  const online = useOnline();
  if (online) return null;
  return (
    <Alert severity="warning" role="status" sx={{ mb: 2 }} data-testid="offline-notice">
      Нет связи. Показаны последние известные данные — пополнение, вывод и коды станут доступны, когда связь вернётся.
    </Alert>
  );
}
