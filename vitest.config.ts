import { defineConfig } from 'vitest/config';

// Unit and integration tests. Integration tests run against PGlite and a throwaway
// PostgreSQL cluster started once by the global setup. Two workers for a 2-core machine.
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts', 'apps/web/src/**/*.test.{ts,tsx}', 'bench/**/*.test.ts', 'scripts/**/*.test.mjs'],
    globalSetup: ['apps/server/test/global-setup.ts'],
    setupFiles: ['apps/server/test/setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll's own default is 1 s; a passing poll returns at once, a failing one waits this long.
    expect: { poll: { timeout: 10_000 } },
  },
});
