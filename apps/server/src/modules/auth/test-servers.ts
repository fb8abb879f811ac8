// Local stand-ins for the outside services the auth module talks to, for tests only: a real
// SMTP listener, an SMS.ru-shaped HTTP gateway and a Discord OAuth server.
import { createHash, createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import type { OutgoingMessage } from './messaging';
import { webAppSecret } from './telegram';

export interface ReceivedMessage {
  to: string;
  subject: string;
  text: string;
  /** The 6-digit code in the text, if any. */
  code: string | null;
}

const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? null;

/** Polls until `find` returns something (messages leave after the answer is sent). */
export async function waitFor<T>(find: () => T | undefined, what: string, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function decodeWords(header: string) {
  return header.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_, enc: string, data: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(data, 'base64').toString('utf8')
      : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}

function decodeQuotedPrintable(s: string) {
  const bytes = s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => `%${h}`);
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
}

/** Just enough MIME for nodemailer's single-part text mail. */
function parseMail(raw: string) {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  const cte = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const text =
    cte === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : cte === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : body;
  return { subject: decodeWords(headers.get('subject') ?? ''), text: text.trim() };
}

/** A real SMTP server on loopback that keeps every mail it is given. */
export async function startSmtp() {
  const messages: ReceivedMessage[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const { subject, text } = parseMail(Buffer.concat(chunks).toString('utf8'));
        for (const rcpt of session.envelope.rcptTo) messages.push({ to: rcpt.address, subject, text, code: codeIn(text) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** The n-th (1-based) mail to that address. */
    next: (to: string, nth = 1) =>
      waitFor(() => messages.filter((m) => m.to === to)[nth - 1], `mail #${nth} to ${to}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readBody(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** SMS.ru's /sms/send: api_id, to, msg, json=1 by query or form; answers like SMS.ru does. */
export async function startSmsGateway(apiKey: string) {
  const messages: ReceivedMessage[] = [];
  let failNext = false;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const form = new URLSearchParams(await readBody(req));
      const get = (k: string) => form.get(k) ?? url.searchParams.get(k);
      res.setHeader('Content-Type', 'application/json');
      if (url.pathname !== '/sms/send') {
        res.statusCode = 404;
        return res.end('{}');
      }
      if (get('api_id') !== apiKey) {
        return res.end(JSON.stringify({ status: 'ERROR', status_code: 200, status_text: 'Неправильный api_id' }));
      }
      const to = get('to') ?? '';
      if (failNext) {
        failNext = false;
        return res.end(
          JSON.stringify({ status: 'OK', status_code: 100, sms: { [to]: { status: 'ERROR', status_code: 207, status_text: 'На этот номер нельзя отправлять сообщения' } } }),
        );
      }
      const text = get('msg') ?? '';
      messages.push({ to: `+${to}`, subject: '', text, code: codeIn(text) });
      res.end(JSON.stringify({ status: 'OK', status_code: 100, sms: { [to]: { status: 'OK', status_code: 100, sms_id: `000-${messages.length}` } }, balance: 100 }));
    })();
  });
  const url = await listen(server);
  return {
    url,
    messages,
    refuseNext() {
      failNext = true;
    },
    next: (to: string, nth = 1) => waitFor(() => messages.filter((m) => m.to === to)[nth - 1], `SMS #${nth} to ${to}`),
    close: () => closeServer(server),
  };
}

export interface FakeDiscordUser {
  id: string;
  username: string;
  global_name?: string | null;
  email?: string | null;
  verified?: boolean;
}

/**
 * Discord's /oauth2/token (authorization_code with PKCE, client by HTTP Basic) and /users/@me.
 * `authorize(user, challenge, redirectUri)` plays the part of the player approving on
 * discord.com: it returns the code Discord would put in the redirect.
 */
export async function startDiscord(client: { id: string; secret: string }) {
  const codes = new Map<string, { user: FakeDiscordUser; challenge: string; redirectUri: string }>();
  const tokens = new Map<string, FakeDiscordUser>();
  const exchanges: Array<{ code: string; ok: boolean }> = [];
  let seq = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      res.setHeader('Content-Type', 'application/json');
      const send = (status: number, body: unknown) => {
        res.statusCode = status;
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && url.pathname === '/oauth2/token') {
        const form = new URLSearchParams(await readBody(req));
        const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
        if (basic !== `${client.id}:${client.secret}`) return send(401, { error: 'invalid_client' });
        const code = form.get('code') ?? '';
        const grant = codes.get(code);
        codes.delete(code);
        const verifier = form.get('code_verifier') ?? '';
        const ok =
          form.get('grant_type') === 'authorization_code' &&
          grant !== undefined &&
          grant.redirectUri === form.get('redirect_uri') &&
          createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
        exchanges.push({ code, ok });
        if (!ok || !grant) return send(400, { error: 'invalid_grant' });
        const accessToken = `at-${++seq}`;
        tokens.set(accessToken, grant.user);
        return send(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 604800, refresh_token: `rt-${seq}`, scope: 'identify email' });
      }
      if (req.method === 'GET' && url.pathname === '/users/@me') {
        const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        if (!user) return send(401, { message: '401: Unauthorized', code: 0 });
        return send(200, { discriminator: '0', avatar: null, ...user });
      }
      send(404, { message: '404: Not Found', code: 0 });
    })();
  });
  const url = await listen(server);
  return {
    url,
    exchanges,
    authorize(user: FakeDiscordUser, authorizeUrl: string) {
      const q = new URL(authorizeUrl).searchParams;
      const code = `code-${++seq}`;
      codes.set(code, { user, challenge: q.get('code_challenge') ?? '', redirectUri: q.get('redirect_uri') ?? '' });
      return { code, state: q.get('state') ?? '', redirect_uri: q.get('redirect_uri') ?? '' };
    },
    close: () => closeServer(server),
  };
}

/** Messages written to DATA_DIR/outbox, oldest first. */
export function readOutbox(dataDir: string): OutgoingMessage[] {
  const dir = join(dataDir, 'outbox');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch {
    return [];
  }
  return names.sort().map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as OutgoingMessage);
}

/** Signs Login Widget fields the way Telegram does: HMAC-SHA-256 keyed with SHA-256(bot token). */
export function signWidget(fields: Record<string, string | number>, botToken: string): Record<string, string | number> {
  const dcs = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const hash = createHmac('sha256', createHash('sha256').update(botToken).digest()).update(dcs).digest('hex');
  return { ...fields, hash };
}

/** Signs initData pairs (kept in the order given, as Telegram does) with the mini app key; `signature` stays in. */
export function signInitData(pairs: Array<[string, string]>, botToken: string): string {
  const dcs = [...pairs]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  const sp = new URLSearchParams(pairs);
  sp.append('hash', createHmac('sha256', webAppSecret(botToken)).update(dcs).digest('hex'));
  return sp.toString();
}
