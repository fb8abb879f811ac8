// A Discord OAuth server (DISCORD_API_URL) for tests.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { closeServer, listen, readBody } from './http';

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
  /** Token calls still to answer with Discord's 429 (our application rate limited), before any check. */
  let limited = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      res.setHeader('Content-Type', 'application/json');
      const send = (status: number, body: unknown) => {
        res.statusCode = status;
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && url.pathname === '/oauth2/token') {
        if (limited > 0) {
          limited -= 1;
          res.setHeader('Retry-After', '2');
          return send(429, { message: 'You are being rate limited.', retry_after: 1.5, global: false });
        }
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
    /** The next `n` token calls get Discord's 429. */
    rateLimitNext(n: number) {
      limited = n;
    },
    authorize(user: FakeDiscordUser, authorizeUrl: string) {
      const q = new URL(authorizeUrl).searchParams;
      const code = `code-${++seq}`;
      codes.set(code, { user, challenge: q.get('code_challenge') ?? '', redirectUri: q.get('redirect_uri') ?? '' });
      return { code, state: q.get('state') ?? '', redirect_uri: q.get('redirect_uri') ?? '' };
    },
    close: () => closeServer(server),
  };
}
