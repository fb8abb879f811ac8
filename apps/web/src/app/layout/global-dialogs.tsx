import { deferred } from '../../components/deferred';
import { useUi } from '../../lib/ui-store';

const GLOBAL = new Set(['not_signed_in', 'no_server', 'alert']);
const Impl = deferred(() => import('./global-dialogs-impl'));

/** Dialogs any screen may open through the UI store; their code arrives the first time one opens. */
export function GlobalDialogs() {
  const active = useUi((s) => GLOBAL.has(s.dialog.name) || s.snackbar.open);
  return <Impl active={active} />;
}
