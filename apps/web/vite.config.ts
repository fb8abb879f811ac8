import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

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

/**
 * Everything the first screen runs (boot.tsx and all it imports statically) in one chunk. Rolldown
 * otherwise splits out each module that a lazy screen shares with the first page into a small
 * common chunk of its own: the first page then downloads some fifteen scripts, each gzipped
 * apart (~6 KB more in all). The lazy chunks import the shared code from this one, which is
 * always in memory before them, since they are loaded only from the first screen's code.
 */
function firstScreenChunk(): Plugin & { groups: Array<{ name: string; test(id: string): boolean }> } {
  const BOOT = join(import.meta.dirname, 'src/boot.tsx');
  const reached = new Set<string>();
  return {
    name: 'adena-first-screen-chunk',
    apply: 'build',
    buildEnd() {
      reached.clear();
      const queue = [BOOT];
      while (queue.length) {
        const id = queue.pop()!;
        if (reached.has(id)) continue;
        reached.add(id);
        queue.push(...(this.getModuleInfo(id)?.importedIds ?? []));
      }
    },
    groups: [{ name: 'boot', test: (id: string) => reached.has(id) }],
  };
}
const firstScreen = firstScreenChunk();

export default defineConfig({
  plugins: [
    react(),
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
    precompress(),
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
