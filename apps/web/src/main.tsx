import { installChunkReload, reloadOnce } from './app/chunk-reload';

// The entry: index.html already shows a static first screen; the app itself is fetched and started
// right after the browser has painted it, so a slow phone sees the page at once. Both chunks are
// preloaded with the page; React's is run first and the rest in a later task, so that neither
// blocks the main thread for as long as the two together would (decision record 0028).
installChunkReload();
const start = () =>
  void import('react-dom/client')
    .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
    .then(() => import('./boot'))
    .catch((err) => {
      // The app's own script of an older build is gone (a deploy): fetch the new page once.
      if (!reloadOnce()) throw err;
    });
if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(start, 0));
else start();
