import { installChunkReload, reloadOnce } from './app/chunk-reload';

// The entry: index.html already shows a static first screen; the app itself is fetched and started
// right after the browser has painted it, so a slow phone sees the page at once.
installChunkReload();
const start = () =>
  void import('./boot').catch((err) => {
    // The app's own script of an older build is gone (a deploy): fetch the new page once.
    if (!reloadOnce()) throw err;
  });
if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(start, 0));
else start();
