import { createHash, randomBytes } from 'node:crypto';

/** PKCE (RFC 7636) with S256: the verifier stays on the server, its hash goes to Discord. */
export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export interface DiscordUser {
  id: string;
  username: string;
  global_name?: string | null;
  email?: string | null;
  verified?: boolean;
}

export class DiscordError extends Error {
  constructor(
    message: string,
    /** 'refused': Discord said no (bad or used code); 'unavailable': no usable answer. */
    readonly kind: 'refused' | 'unavailable',
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 10_000;

async function call(url: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new DiscordError(`Discord unreachable: ${(err as Error).message}`, 'unavailable');
  }
  const data = await res.json().catch(() => null);
  // A 429 is Discord limiting our application, not a verdict on the player's code: «попробуйте позже», and
  // it counts against no one's address.
  if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new DiscordError(`Discord refused: HTTP ${res.status}`, 'refused');
  if (!res.ok || !data || typeof data !== 'object') throw new DiscordError(`Discord answered HTTP ${res.status}`, 'unavailable');
  return data;
}

/** The authorization-code grant with the PKCE verifier; the client authenticates with HTTP Basic. */
export async function exchangeCode(opts: {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  code: string;
  redirectUri: string;
  codeVerifier: string;
}): Promise<string> {
  const data = (await call(`${opts.apiUrl.replace(/\/$/, '')}/oauth2/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${encodeURIComponent(opts.clientId)}:${encodeURIComponent(opts.clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: opts.code,
      redirect_uri: opts.redirectUri,
      code_verifier: opts.codeVerifier,
    }),
  })) as { access_token?: unknown };
  if (typeof data.access_token !== 'string') throw new DiscordError('Discord gave no access token', 'unavailable');
  return data.access_token;
}

export async function fetchDiscordUser(apiUrl: string, accessToken: string): Promise<DiscordUser> {
  const data = (await call(`${apiUrl.replace(/\/$/, '')}/users/@me`, {
    headers: { Authorization: `Bearer ${accessToken}` },
  })) as Record<string, unknown>;
  // Discord ids are snowflakes beyond 2^53: they must arrive, and stay, strings.
  if (typeof data.id !== 'string' || !/^\d{1,25}$/.test(data.id)) throw new DiscordError('Discord user without an id', 'unavailable');
  return {
    id: data.id,
    username: typeof data.username === 'string' ? data.username : '',
    global_name: typeof data.global_name === 'string' ? data.global_name : null,
    email: typeof data.email === 'string' ? data.email : null,
    verified: data.verified === true,
  };
}
