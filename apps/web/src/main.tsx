// Before any chunk that loads zod (lib/zod-jitless.ts).
import './lib/zod-jitless';
import { installChunkReload, reloadOnce } from './app/chunk-reload';

// The entry: index.html already shows a static first screen; the app itself is fetched and started
// right after the browser has painted it, so a slow phone sees the page at once. Both chunks are
// fetched together then; React's is run first and the rest in a later task, so that neither
// blocks the main thread for as long as the two together would (decision record 0028).
installChunkReload();

/** Starts fetching the first screen's chunks, without running them (index.html names them; vite.config.ts). */
function preloadFirstScreen() {
  const files = document.querySelector<HTMLMetaElement>('meta[name="adena-preload"]')?.content.split(' ') ?? [];
  for (const href of files.filter(Boolean)) {
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = href;
    document.head.append(link);
  }
}

const start = () => {
  preloadFirstScreen();
  void import('react-dom/client')
    .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
    .then(() => import('./boot'))
    .catch((err) => {
      // The app's own script of an older build is gone (a deploy): fetch the new page once.
      if (!reloadOnce()) throw err;
    });
};

/**
 * Runs `run` once the static first screen has been painted: when the browser reports the first
 * contentful paint (a frame is only reported once shown, unlike a requestAnimationFrame callback,
 * which runs before its frame and, on a busy phone, can let the scripts run before anything is
 * shown), or after a frame where paint timing is missing, or after 1 s at the latest.
 */
function afterFirstPaint(run: () => void) {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    run();
  };
  const frame = () => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => setTimeout(once, 0)) : once());
  if (typeof PerformanceObserver !== 'function' || !PerformanceObserver.supportedEntryTypes?.includes('paint')) return frame();
  const observer = new PerformanceObserver((list) => {
    if (!list.getEntriesByName('first-contentful-paint').length) return;
    observer.disconnect();
    setTimeout(once, 0);
  });
  observer.observe({ type: 'paint', buffered: true });
  setTimeout(() => {
    observer.disconnect();
    once();
  }, 1000);
}
afterFirstPaint(start);
