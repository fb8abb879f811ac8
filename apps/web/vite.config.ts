import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { build, defineConfig, type Plugin } from 'vite';

/**
 * Writes .br and .gz beside every text asset of the build; the server sends them as they are
 * (@fastify/static preCompressed), so nothing is compressed per request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
  return {
    name: 'adena-precompress',
    apply: 'build',
    configResolved(c) {
      outDir = c.build.outDir;
    },
    closeBundle: {
      order: 'post',
      handler() {
        for (const file of walk(outDir).filter((f) => /\.(js|css|html|svg|webmanifest|json)$/.test(f))) {
          const data = readFileSync(file);
          if (data.length < 1024) continue;
          writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
          writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
        }
      },
    },
  };
}
import { VitePWA } from 'vite-plugin-pwa';

/** Set while vite.config.ts builds the app once more to learn what the first page runs (below). */
const FIRST_PASS = 'ADENA_FIRST_SCREEN_PASS';

/**
 * Everything the first screen runs (boot.tsx and what it needs) in one chunk. Rolldown otherwise
 * splits out each module that a lazy screen shares with the first page into a small common chunk
 * of its own: the first page then downloads some fifteen scripts, each gzipped apart (~6 KB more
 * in all). The lazy chunks import the shared code from this one, which is always in memory before
 * them, since they are loaded only from the first screen's code.
 *
 * Which modules those are is learnt from a first build without the group (write: false): the
 * modules of the chunk of boot.tsx and of every chunk it imports statically, less the entry's.
 * Walking boot.tsx's imports instead (as before, decision record 0028) also takes modules that
 * only a dead re-export reaches — `@mui/material/styles` → enhanceHighContrast → the input classes
 * → InputBase — and, as a lazy screen needs them, the group then put them on the first page.
 *
 * The entry (main.tsx, chunk-reload.ts and Vite's preload helper) stays out of the group, and the
 * group takes no dependencies beyond its list: otherwise the preload helper, which the first
 * screen's lazy imports use too, lands in the boot chunk, the entry imports that chunk statically,
 * and all of it runs before the first paint instead of after it (main.tsx). The boot chunk is
 * fetched at the first paint, not run: index.html names it (and React's chunk) in a
 * `<meta name="adena-preload">`, and main.tsx adds a modulepreload link for each once the static
 * first screen is painted. Links in the HTML itself would start both downloads before the first
 * paint, where a slow phone's connection (and Lighthouse's model of one, which counts every request
 * started before the largest paint as holding it back) has them compete with the page itself.
 *
 * React, React DOM and the scheduler are a chunk of their own, which main.tsx runs one task before
 * the rest: running ~440 KB of script was one long task of the page (no larger in gzip: the two
 * compress as well apart as together).
 */
function firstScreenChunk(): Plugin & { groups: Array<{ name: string; test(id: string): boolean; priority?: number; includeDependenciesRecursively: boolean }> } {
  const BOOT = join(import.meta.dirname, 'src/boot.tsx');
  const modules = new Set<string>();
  return {
    name: 'adena-first-screen-chunk',
    apply: 'build',
    async buildStart() {
      if (process.env[FIRST_PASS]) return;
      modules.clear();
      process.env[FIRST_PASS] = '1';
      try {
        await build({
          configFile: join(import.meta.dirname, 'vite.config.ts'),
          logLevel: 'silent',
          build: { write: false, emptyOutDir: false },
          plugins: [
            {
              name: 'adena-first-screen-modules',
              generateBundle(_, bundle) {
                const chunks = new Map(Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? [[c.fileName, c] as const] : [])));
                const queue = [...chunks.values()].filter((c) => c.facadeModuleId === BOOT).map((c) => c.fileName);
                // The entry (main.tsx, and Vite's preload helper that boot's chunk imports from it)
                // stays apart: it runs at once, boot after the first paint.
                const seen = new Set([...chunks.values()].filter((c) => c.isEntry).map((c) => c.fileName));
                while (queue.length) {
                  const file = queue.pop()!;
                  if (seen.has(file)) continue;
                  seen.add(file);
                  const chunk = chunks.get(file)!;
                  for (const id of Object.keys(chunk.modules)) modules.add(id);
                  queue.push(...chunk.imports);
                }
              },
            },
          ],
        });
      } finally {
        delete process.env[FIRST_PASS];
      }
      if (!modules.has(BOOT)) throw new Error('adena-first-screen-chunk: the first pass found no chunk for src/boot.tsx');
      // The first page never loads zod (decision record 0004): ~15 KB gzip more, and building a schema tries eval,
      // which the CSP refuses, a violation on every load. A first-screen module that imports '@adena/contract'
      // instead of '@adena/contract/lite' brings it (2026-11-28: components/load-failed.tsx, through the user-read warning).
      const zod = [...modules].filter((id) => /[\\/]node_modules[\\/]zod[\\/]/.test(id));
      if (zod.length > 0) {
        const fromContract = [...modules].filter((id) => /[\\/]packages[\\/]contract[\\/]src[\\/]/.test(id) && !/lite\.ts$/.test(id));
        throw new Error(`adena-first-screen-chunk: the first page would load zod (${zod.length} modules); import from '@adena/contract/lite' in first-screen code. Contract modules on the first page: ${fromContract.join(', ')}`);
      }
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const boot = Object.values(ctx.bundle ?? {}).find((c) => c.type === 'chunk' && c.name === 'boot');
        if (boot?.type !== 'chunk') return;
        const files = [boot.fileName, ...boot.imports].filter((file) => file !== ctx.chunk?.fileName && !html.includes(`/${file}"`));
        return [{ tag: 'meta', attrs: { name: 'adena-preload', content: files.map((file) => `/${file}`).join(' ') }, injectTo: 'head' as const }];
      },
    },
    groups: [
      { name: 'react', test: (id: string) => modules.has(id) && /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/.test(id), priority: 1, includeDependenciesRecursively: false },
      { name: 'boot', test: (id: string) => modules.has(id), includeDependenciesRecursively: false },
    ],
  };
}
const firstScreen = firstScreenChunk();

/**
 * MUI's CSS-variables theme (createThemeWithVars, CssVarsProvider and the colour-scheme script
 * they bring, ~7 KB gzip) is never used: buildTheme passes neither `cssVariables` nor
 * `colorSchemes`, so createTheme takes createThemeNoVars and ThemeProvider ThemeProviderNoVars.
 * Both still import the other branch; these two imports get a stub that says why if ever called.
 */
function muiWithoutCssVariables(): Plugin {
  const STUB = '\0adena-mui-css-vars-stub';
  const from = /[\\/]@mui[\\/]material[\\/]styles[\\/](createTheme|ThemeProvider)\.mjs$/;
  return {
    name: 'adena-mui-without-css-variables',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer && from.test(importer) && (source === './createThemeWithVars.mjs' || source === './ThemeProviderWithVars.mjs')) return STUB;
    },
    load(id) {
      if (id !== STUB) return;
      return [
        'const left = () => { throw new Error("MUI\'s CSS-variables theme is left out of the build (apps/web/vite.config.ts)"); };',
        'export default left;',
        'export const CssVarsProvider = left;',
      ].join('\n');
    },
  };
}

const firstPass = Boolean(process.env[FIRST_PASS]);

export default defineConfig({
  plugins: [
    react(),
    muiWithoutCssVariables(),
    // The first pass (firstScreenChunk) only looks at the chunks: no service worker, no files.
    !firstPass &&
      VitePWA({
      // SPEC.md: the worker lives at /sw.js and is registered by our own code at load.
      filename: 'sw.js',
      injectRegister: false,
      registerType: 'autoUpdate',
      manifest: {
        name: 'Адена Кошелёк',
        short_name: 'Адена',
        description: 'Кошелёк адены и монет эйнхасад для Lineage 2: пополнение, вывод и подарочные коды',
        lang: 'ru',
        start_url: '/',
        display: 'standalone',
        background_color: '#101418',
        theme_color: '#b8860b',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api\//, /^\/socket\.io\//],
        globPatterns: ['**/*.{js,css,html,png,svg,ico,webmanifest}'],
        // The admin area (routes/admin.tsx → assets/admin-*.js) is for operators online only: the
        // worker does not pre-cache it, so players never download it, not even in the background.
        // og-image.png is for link previews (Telegram, Discord), fetched by their robots, never by the app.
        globIgnores: ['**/assets/admin-*.js', 'og-image.png'],
        // API answers are never served from a cache: money must not be shown stale as if live.
        runtimeCaching: [{ urlPattern: ({ url }) => url.pathname.startsWith('/api/'), handler: 'NetworkOnly' }],
      },
    }),
    !firstPass && precompress(),
    firstScreen,
  ],
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rolldownOptions: { output: { codeSplitting: { groups: firstScreen.groups } } },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/socket.io': { target: 'ws://127.0.0.1:3000', ws: true } } },
});
