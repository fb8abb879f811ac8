import { defineConfig } from 'vitest/config';

// Browser tests: the built web app served by the real server, driven in Debian's Chromium.
export default defineConfig({
  test: {
    include: ['apps/web/e2e/**/*.spec.ts'],
    globalSetup: ['apps/server/test/global-setup.ts'],
    setupFiles: ['apps/server/test/setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // expect.poll's own default is 1 s: too short for a click, a server round trip and a render in
    // Chromium on two busy cores. A passing poll returns at once; only a failing one waits this long.
    expect: { poll: { timeout: 10_000, interval: 100 } },
  },
});
