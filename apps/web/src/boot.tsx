import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { AppProvider } from './app/provider';
import { AppRouter } from './app/router';

// A transition: React renders the first screen in slices and yields to the browser between them,
// so a slow phone is never blocked for long (the static shell in index.html shows meanwhile).
startTransition(() => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <AppProvider>
        <AppRouter />
      </AppProvider>
    </StrictMode>,
  );
});

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
