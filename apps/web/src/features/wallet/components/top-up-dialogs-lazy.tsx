import type { Gamesserver } from '@adena/contract/lite';
import { lazy, Suspense } from 'react';

const Impl = lazy(() => import('./money-dialogs').then((m) => ({ default: m.TopUpDialogs })));

/** The low-balance dialog and its top-up, loaded with the screen that shows them (not on the first page). */
export function TopUpDialogs({ server, nick }: { server: Gamesserver; nick: string | null }) {
  return (
    <Suspense fallback={null}>
      <Impl server={server} nick={nick} />
    </Suspense>
  );
}
