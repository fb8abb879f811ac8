import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { errorMessage } from '@adena/contract';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BUILT_BRAND } from '../config';

/** The page and the manifest, with another BRAND_NAME in place of the built one, compressed once. */
interface BrandedFile {
  type: string;
  plain: Buffer;
  br: Buffer;
  gzip: Buffer;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function branded(type: string, text: string): BrandedFile {
  const plain = Buffer.from(text);
  return { type, plain, br: brotliCompressSync(plain), gzip: gzipSync(plain) };
}

/**
 * index.html names the service in its title, the first paint's bar and the link-preview tags; the manifest in the
 * name an installed app shows. Both are built with BUILT_BRAND; another BRAND_NAME is written into them here.
 */
function brandedFiles(root: string, brand: string) {
  const page = branded('text/html; charset=utf-8', readFileSync(join(root, 'index.html'), 'utf8').replaceAll(BUILT_BRAND, () => escapeHtml(brand)));
  const manifestPath = join(root, 'manifest.webmanifest');
  const manifest = existsSync(manifestPath)
    ? branded('application/manifest+json', JSON.stringify({ ...JSON.parse(readFileSync(manifestPath, 'utf8')), name: brand, short_name: brand }))
    : null;
  return { page, manifest };
}

function sendBranded(request: FastifyRequest, reply: FastifyReply, file: BrandedFile) {
  const accepted = String(request.headers['accept-encoding'] ?? '');
  const encoding = /\bbr\b/.test(accepted) ? 'br' : /\bgzip\b/.test(accepted) ? 'gzip' : null;
  reply.header('Cache-Control', 'no-cache').header('Vary', 'Accept-Encoding').type(file.type);
  if (encoding) reply.header('Content-Encoding', encoding);
  return reply.send(encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : file.plain);
}

/**
 * The built web app on the same origin; unknown non-API paths get index.html (client routing). With a BRAND_NAME
 * other than the built one, the page and the manifest are served from memory with it written in (the files on disk
 * and their .br/.gz twins are left out of the static routes), so the first paint, the link previews and an installed
 * app already carry it.
 */
export async function registerWeb(app: FastifyInstance, root: string, brand: string) {
  const hasWeb = existsSync(join(root, 'index.html'));
  const own = hasWeb && brand !== BUILT_BRAND ? brandedFiles(root, brand) : null;
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: ['index.html'],
      globIgnore: own ? ['index.html', 'index.html.*', 'manifest.webmanifest', 'manifest.webmanifest.*'] : undefined,
      // The build writes .br and .gz beside each asset (apps/web/vite.config.ts).
      preCompressed: true,
      setHeaders(res, path) {
        // The service worker and the page must revalidate; hashed assets may be cached for good.
        if (path.includes(`${join(root, 'assets')}`)) res.header('Cache-Control', 'public, max-age=31536000, immutable');
        else res.header('Cache-Control', 'no-cache');
      },
    });
  }
  if (own) {
    const { page, manifest } = own;
    app.get('/', (request, reply) => sendBranded(request, reply, page));
    app.get('/index.html', (request, reply) => sendBranded(request, reply, page));
    if (manifest) app.get('/manifest.webmanifest', (request, reply) => sendBranded(request, reply, manifest));
  }
  app.setNotFoundHandler((request, reply) => {
    // A missing hashed asset (a script of an older build after a deploy) is a 404, never the page:
    // the web app sees the failed load and reloads itself once (apps/web/src/app/chunk-reload.ts).
    const isPage =
      request.method === 'GET' && !request.url.startsWith('/api/') && !request.url.startsWith('/socket.io/') && !request.url.startsWith('/assets/');
    if (hasWeb && isPage) {
      if (own) return sendBranded(request, reply, own.page);
      return reply.header('Cache-Control', 'no-cache').type('text/html').sendFile('index.html');
    }
    return reply.status(404).send({ message: errorMessage('NOT_FOUND') });
  });
}
