import Skeleton from '@mui/material/Skeleton';
import { lazy, Suspense } from 'react';

// The statement loads when its tab opens.
const StatementScreen = lazy(() => import('./statement-view').then((m) => ({ default: m.StatementView })));

export function StatementView({ initialServerId }: { initialServerId: number | null }) {
  return (
    <Suspense fallback={<Skeleton variant="rounded" height={240} />}>
      <StatementScreen initialServerId={initialServerId} />
    </Suspense>
  );
}
