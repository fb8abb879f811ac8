import { useQueryClient } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useEffect, useState, useSyncExternalStore } from 'react';
import { tokenStore } from '../../lib/api-client';
import type { RealtimeClient } from '../../lib/realtime';
import { RealtimeContext } from '../../lib/realtime-state';
import { useUi } from '../../lib/ui-store';
import { endSession, sessionEndedText, useUser } from '../../lib/session';

/** A realtime notice (a decision with its reason) stays long enough to be read. */
const DECISION_SNACKBAR_MS = 6000;

// Mounted for every signed-in user, on any screen: an incident may arrive wherever they are.
const ErrorCodeDialog = lazy(() => import('../../features/codes/components/error-code-dialog').then((m) => ({ default: m.ErrorCodeDialog })));

/**
 * One realtime client per session: created on sign-in, closed on sign-out, when the user changes, and
 * when a new session of the same user replaces this tab's (its socket sits in the old session's room, and
 * ending that session would sign this tab out); its events applied to the query cache by SPEC.md section 4's rules.
 */
export function RealtimeProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const { user } = useUser();
  const userId = user?.id ?? null;
  const token = useSyncExternalStore(tokenStore.subscribe, tokenStore.get, () => null);
  const [client, setClient] = useState<RealtimeClient | null>(null);

  useEffect(() => {
    if (userId === null || token === null) return;
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
        // The user read then answers 401 too, and signs the tab out (forgetting what it held).
        onUnauthorized: () => void qc.invalidateQueries({ queryKey: ['user'] }),
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
  }, [userId, token, qc]);

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
