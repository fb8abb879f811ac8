import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { AppProvider, prefetchFirstScreen } from './app/provider';
import { AppRouter } from './app/router';

// The static shell in index.html shows while the first screen's data comes (at most 800 ms);
// then React renders it as a transition, in slices, yielding to the browser between them, so a
// slow phone is never blocked for long.
void prefetchFirstScreen(800).then(() =>
  startTransition(() => {
    createRoot(document.getElementById('root')!).render(
      <StrictMode>
        <AppProvider>
          <AppRouter />
        </AppProvider>
      </StrictMode>,
    );
  }),
);

// SPEC.md section 1: a service worker is registered at load, at /sw.js. This module itself usually
// runs after the load event (main.tsx starts it after the first paint), so register at once then.
function registerServiceWorker() {
  navigator.serviceWorker.register('/sw.js').catch(() => {
    // No worker (dev server, private mode): the app works without offline support.
  });
}
if ('serviceWorker' in navigator) {
  if (document.readyState === 'complete') registerServiceWorker();
  else window.addEventListener('load', registerServiceWorker);
}
