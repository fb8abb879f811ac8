import { deferred } from '../../components/deferred';
import { useStepUp } from '../../lib/step-up';
import { useUi } from '../../lib/ui-store';

const GLOBAL = new Set(['not_signed_in', 'no_server', 'alert']);
const Impl = deferred(() => import('./global-dialogs-impl'));
const StepUp = deferred(() => import('../../components/step-up-dialog'));

/** Dialogs any screen may open through the UI store; their code arrives the first time one opens. */
export function GlobalDialogs() {
  const active = useUi((s) => GLOBAL.has(s.dialog.name) || s.snackbar.open);
  // The second-factor prompt of pricekods, my codes and API keys (lib/step-up), over any dialog.
  const stepUp = useStepUp((s) => s.prompt !== null);
  return (
    <>
      <Impl active={active} />
      <StepUp active={stepUp} />
    </>
  );
}
