// The entry: index.html already shows a static first screen; the app itself is fetched and started
// right after the browser has painted it, so a slow phone sees the page at once.
const start = () => void import('./boot');
if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => setTimeout(start, 0));
else start();
