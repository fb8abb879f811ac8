import type { Gamesserver } from '@adena/contract/lite';
import Skeleton from '@mui/material/Skeleton';
import { lazy, Suspense } from 'react';
import type { ServerWait } from '../../../lib/gamesservers';
import type { TopUpDialogs } from './codes-tab';

// The codes screens (and the zod schemas their forms validate with) load when the tab opens.
const CodesTabScreen = lazy(() => import('./codes-tab'));

export function CodesTab(props: { server: Gamesserver | undefined; wait?: ServerWait; topUp: TopUpDialogs }) {
  return (
    <Suspense fallback={<Skeleton variant="rounded" height={240} />}>
      <CodesTabScreen {...props} />
    </Suspense>
  );
}
