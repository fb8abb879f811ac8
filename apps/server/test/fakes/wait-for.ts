/**
 * Polls until `find` returns something (messages leave after the answer is sent). A bound for what
 * never comes, not a timed assertion: generous, since a passing wait returns at once.
 */
export async function waitFor<T>(find: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
