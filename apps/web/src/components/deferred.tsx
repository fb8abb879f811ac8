import { type ComponentType, lazy, Suspense, useEffect, useState } from 'react';
import { ErrorBoundary, ErrorNotice } from './error-boundary';

/**
 * A component whose code is downloaded the first time it is needed (`active`), and which stays
 * mounted afterwards so that closing animations still play. Dialogs and menus use it: the first
 * page carries none of their code (MUI's Modal, Popover and TextField weigh ~60 KB gzip). Code that
 * will not load (or fails to render) says so while it is wanted, and the page stays.
 */
export function deferred<P extends object>(load: () => Promise<{ default: ComponentType<P> }>) {
  const Component = lazy(load);
  return function Deferred({ active, ...props }: P & { active: boolean }) {
    const [mounted, setMounted] = useState(active);
    useEffect(() => {
      if (active) setMounted(true);
    }, [active]);
    if (!mounted && !active) return null;
    return (
      <ErrorBoundary fallback={(chunk) => active && <ErrorNotice chunk={chunk} dialog />}>
        <Suspense fallback={null}>
          <Component {...(props as P)} />
        </Suspense>
      </ErrorBoundary>
    );
  };
}
