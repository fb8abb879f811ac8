/**
 * zod builds a faster parser for each object schema with `new Function`, after probing once whether the page may
 * `eval`. Our Content-Security-Policy has no 'unsafe-eval': the probe was refused, caught by zod, and reported as a
 * violation on every page that builds a schema (the profile, the operators' area; Chromium walk, 2026-11-29). Turned
 * off before zod loads: the first screen does not load zod (vite.config.ts), so its public `z.config({ jitless: true })`
 * cannot run first; zod 4 starts from the config object it finds at `globalThis.__zod_globalConfig` (core.js), which
 * is what `z.config` writes. `security.spec.ts` sees a violation again should that change.
 */
const holder = globalThis as { __zod_globalConfig?: Record<string, unknown> };
holder.__zod_globalConfig = { ...holder.__zod_globalConfig, jitless: true };
