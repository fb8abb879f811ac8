import { useQueryClient } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import type { RealtimeClient } from '../../lib/realtime';
import { RealtimeContext } from '../../lib/realtime-state';
import { useUi } from '../../lib/ui-store';
import { endSession, sessionEndedText, useUser } from '../../lib/session';

/** A realtime notice (a decision with its reason) stays long enough to be read. */
const DECISION_SNACKBAR_MS = 6000;

// Mounted for every signed-in user, on any screen: an incident may arrive wherever they are.
const ErrorCodeDialog = lazy(() => import('../../features/codes/components/error-code-dialog').then((m) => ({ default: m.ErrorCodeDialog })));

/**
 * One realtime client per signed-in user: created on sign-in, closed on sign-out (or when the
 * user changes), its events applied to the query cache by SPEC.md section 4's rules.
 */
export function RealtimeProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const { user } = useUser();
  const userId = user?.id ?? null;
  const [client, setClient] = useState<RealtimeClient | null>(null);

  useEffect(() => {
    if (userId === null) return;
    const ui = useUi.getState;
    let c: RealtimeClient | null = null;
    let closed = false;
    // Back online or back to the tab: try at once rather than wait for the timer.
    const retry = () => c?.retryNow();
    const visible = () => document.visibilityState === 'visible' && c?.retryNow();
    // socket.io-client and the event rules load only for a signed-in user, after the first page.
    void Promise.all([import('../../lib/realtime'), import('./apply-message')]).then(([{ RealtimeClient }, { applyRealtimeMessage, resync }]) => {
      if (closed) return;
      c = new RealtimeClient(userId, {
        onMessage: (msg) =>
          applyRealtimeMessage(qc, msg, {
            openErrorCode: (incidentId) => ui().offerDialog({ name: 'error_code', incidentId }),
            endSession: (reason) => {
              endSession(qc);
              // A logout ends only the session of this device, which asked for it: nothing to explain.
              if (reason !== 'logout') ui().showSnackbar(sessionEndedText(reason), 'warning', 10_000);
            },
            notify: (text, status = 'info') => ui().showSnackbar(text, status, DECISION_SNACKBAR_MS),
          }),
        onResync: () => resync(qc),
      });
      setClient(c);
      c.connect();
      window.addEventListener('online', retry);
      document.addEventListener('visibilitychange', visible);
    });
    return () => {
      closed = true;
      // An incident offered to this user must not open for the next one.
      useUi.setState({ queued: null });
      window.removeEventListener('online', retry);
      document.removeEventListener('visibilitychange', visible);
      if (!c) return;
      const mine = c;
      mine.close();
      setClient((cur) => (cur === mine ? null : cur));
    };
  }, [userId, qc]);

  return (
    <RealtimeContext.Provider value={client}>
      {children}
      {userId !== null && (
        <Suspense fallback={null}>
          <ErrorCodeDialog />
        </Suspense>
      )}
    </RealtimeContext.Provider>
  );
}
