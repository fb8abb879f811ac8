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
  },
});
