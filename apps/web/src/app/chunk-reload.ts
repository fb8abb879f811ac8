// After a deploy the page in an open tab still names the scripts of the build it came from; the
// server answers 404 for those (PRODUCT.md section 9). Vite reports a failed dynamic import or
// preload as `vite:preloadError`: the page then reloads to fetch the new build's index.html.
// sessionStorage keeps the time of the last such reload, so a script missing for another reason
// reloads once and then fails as before instead of reloading in a loop.
const KEY = 'adena:chunk-reload-at';
const AGAIN_AFTER_MS = 60_000;

/** Reloads the page unless it already did so in the last minute; true when it did. */
export function reloadOnce(): boolean {
  try {
    const last = Number(sessionStorage.getItem(KEY) ?? 0);
    if (Date.now() - last < AGAIN_AFTER_MS) return false;
    sessionStorage.setItem(KEY, String(Date.now()));
  } catch {
    return false;
  }
  location.reload();
  return true;
}

export function installChunkReload() {
  window.addEventListener('vite:preloadError', (event) => {
    if (reloadOnce()) event.preventDefault();
  });
}
