import Skeleton from '@mui/material/Skeleton';
import { lazy, Suspense } from 'react';

// The history (list, chips, pagination) loads when its tab opens; most first visits never do.
const HistoryListScreen = lazy(() => import('./history-list').then((m) => ({ default: m.HistoryList })));

export function HistoryList({ gameServerId }: { gameServerId: number | null }) {
  return (
    <Suspense fallback={<Skeleton variant="rounded" height={240} />}>
      <HistoryListScreen gameServerId={gameServerId} />
    </Suspense>
  );
}
