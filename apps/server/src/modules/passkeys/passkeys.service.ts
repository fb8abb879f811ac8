import { type AuthResponse, PASSKEYS_MAX, TWO_FACTOR_MESSAGES as T } from '@adena/contract';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { DbHandle, Trx } from '../../db/schema';
import { AppError } from '../../lib/app-error';
import type { Caller, Client, User } from '../sessions/caller';
import { requireLiveSession } from '../sessions/live-session';
import type { SessionOrigin } from '../sessions/sessions.service';
import { toPasskey } from './passkeys.mapper';
import { passkeysRepository as repo } from './passkeys.repository';

const CHALLENGE_TTL_MS = 5 * 60_000;
/** WebAuthn's transport names (level 3, with the older `cable`): anything else a client sends is dropped. */
const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/** The relying party of one request: PUBLIC_URL's host, else the request's (routes decide). */
export interface RelyingParty {
  id: string;
  origin: string;
}

export interface PasskeysDeps {
  db: DbHandle;
  issue: (q: Trx | DbHandle, user: User, origin: SessionOrigin) => Promise<AuthResponse>;
  now: () => Date;
  /** BRAND_NAME: the relying party's name a passkey manager shows beside the key. */
  brand: string;
}

/** 409 at the cap: every passkey signs in alone, so an account keeps a list its owner can still review. */
const tooMany = () => new AppError('CONFLICT', { message: T.passkeysMax });

const invalid = () => new AppError('VALIDATION', { message: T.passkeyInvalid, errors: { response: [T.passkeyInvalid] } });

/** The challenge a browser signed, read from clientDataJSON; null when the response is malformed. */
function challengeOf(response: { response?: unknown }): string | null {
  try {
    const data = (response.response as { clientDataJSON?: unknown } | undefined)?.clientDataJSON;
    if (typeof data !== 'string') return null;
    const parsed = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed.challenge === 'string' && parsed.challenge.length <= 512 ? parsed.challenge : null;
  } catch {
    return null;
  }
}

/**
 * Passkeys (WebAuthn, discoverable credentials) with @simplewebauthn/server. Challenges sit in
 * the database, so the process that verifies need not be the one that issued; each is deleted
 * by the verification that uses it. A passkey sign-in counts as both factors.
 */
// Long: a factory of short functions, one per step of a passkey's registration, sign-in and removal.
export function createPasskeysService({ db, issue, now, brand }: PasskeysDeps) {
  const expiry = () => new Date(now().getTime() + CHALLENGE_TTL_MS);

  return {
    async registerOptions(caller: Caller, rp: RelyingParty) {
      const existing = await repo.ofUser(db, caller.user.id);
      if (existing.length >= PASSKEYS_MAX) throw tooMany();
      const u = caller.user;
      const options = await generateRegistrationOptions({
        rpName: brand,
        rpID: rp.id,
        userName: u.email ?? u.phone ?? `user-${u.id}`,
        userDisplayName: u.name || u.email || u.phone || `#${u.id}`,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
        // A passkey signs in alone, as both factors: only with the authenticator's own check (PIN,
        // fingerprint), never by mere possession of the key.
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      await repo.insertChallenge(db, { challenge: options.challenge, purpose: 'register', user_id: u.id, expires_at: expiry() });
      return options as unknown as Record<string, unknown>;
    },

    async registerVerify(caller: Caller, rp: RelyingParty, response: unknown, name: string | undefined) {
      const challenge = challengeOf(response as { response?: unknown });
      if (!challenge || !(await repo.takeChallenge(db, challenge, 'register', caller.user.id, now()))) throw invalid();
      const result = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      }).catch(() => null);
      if (!result?.verified) throw invalid();
      const { credential } = result.registrationInfo;
      // The id inside the signed authenticator data must be the one the response names (which the
      // contract bounds); transports are the browser's hints, kept only when they are known names.
      if (credential.id !== (response as { id?: unknown }).id) throw invalid();
      const transports = Array.isArray(credential.transports) ? credential.transports.filter((t) => typeof t === 'string' && TRANSPORTS.has(t)).slice(0, TRANSPORTS.size) : [];
      const row = await db.transaction().execute(async (trx) => {
        // The user's row, held for update first, so ceremonies finishing at once count one after the other
        // (the live-session check below only shares it, and shared holds do not wait for each other).
        await repo.holdUser(trx, caller.user.id);
        // The session must still be live in this transaction: a password reset ending it removes what it added.
        await requireLiveSession(trx, caller);
        const count = (await repo.ofUser(trx, caller.user.id)).length;
        if (count >= PASSKEYS_MAX) throw tooMany();
        return repo
          .insert(trx, {
            user_id: caller.user.id,
            credential_id: credential.id,
            public_key: credential.publicKey,
            counter: credential.counter,
            transports,
            name: name || `Ключ доступа ${count + 1}`,
          })
          .catch((err: { code?: string }) => {
            if (err?.code === '23505') throw new AppError('CONFLICT', { message: 'Этот ключ доступа уже добавлен' });
            throw err;
          });
      });
      return toPasskey(row);
    },

    /** A password reset, in its transaction: every passkey of the user goes (a thief's session could have added one). */
    removeAllOf: (userId: number, q: Parameters<typeof repo.deleteAllOf>[0]) => repo.deleteAllOf(q, userId),

    list: async (caller: Caller) => (await repo.ofUser(db, caller.user.id)).map(toPasskey),

    async remove(caller: Caller, id: number) {
      // Under the user's row with the session checked: a block or a logout the call waited for ends it (401).
      const deleted = await db.transaction().execute(async (trx) => {
        await requireLiveSession(trx, caller);
        return repo.delete(trx, caller.user.id, id);
      });
      if (!deleted) throw new AppError('NOT_FOUND', { message: 'Ключ доступа не найден' });
      return { success: id };
    },

    async loginOptions(rp: RelyingParty) {
      const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', allowCredentials: [] });
      await repo.insertChallenge(db, { challenge: options.challenge, purpose: 'login', user_id: null, expires_at: expiry() });
      return options as unknown as Record<string, unknown>;
    },

    async loginVerify(rp: RelyingParty, response: unknown, client: Client): Promise<AuthResponse> {
      const challenge = challengeOf(response as { response?: unknown });
      if (!challenge || !(await repo.takeChallenge(db, challenge, 'login', null, now()))) throw invalid();
      const id = (response as { id: string }).id;
      const passkey = await repo.byCredentialId(db, id);
      if (!passkey) throw new AppError('UNAUTHENTICATED', { message: T.passkeyUnknown });
      const result = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: { id: passkey.credential_id, publicKey: new Uint8Array(passkey.public_key), counter: Number(passkey.counter), transports: passkey.transports as never },
        requireUserVerification: true,
      }).catch(() => null);
      if (!result?.verified) throw invalid();
      const user = await repo.findUser(db, passkey.user_id);
      if (!user) throw new AppError('UNAUTHENTICATED', { message: T.passkeyUnknown });
      if (user.blocked_at) throw new AppError('USER_BLOCKED');
      return repo.transaction(db, async (trx) => {
        // The user's row before the passkey's: a block, a reset or a TOTP rescue holds that row and then deletes
        // the passkeys. The passkey's row taken first, each waited for the other's lock and one side answered 503.
        // One that committed meanwhile is found below as now: the passkey gone (422) or the user blocked (401).
        await repo.shareUser(trx, user.id);
        // A counter that did not move forward (when the authenticator keeps one) is a cloned key.
        const counter = result.authenticationInfo.newCounter;
        if (!(await repo.advanceCounter(trx, passkey.id, counter, now()))) throw invalid();
        return issue(trx, user, { method: 'passkey', client });
      });
    },

  };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;
