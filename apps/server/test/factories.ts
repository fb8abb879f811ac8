import type { Kysely } from 'kysely';
import type { Database } from '../src/db/schema';
import { newToken, hashToken } from '../src/lib/tokens';
import { post, serviceAccount, walletAccount } from '../src/modules/ledger/ledger.service';

let seq = 0;

/** The TOTP secret of the admins createUser makes (base32); `totpCode(TEST_TOTP_SECRET, at)` gives their codes. */
export const TEST_TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/**
 * A real user row with a live access token. Admins get TOTP on (`TEST_TOTP_SECRET`), as every
 * operator must have it before admin calls answer (PRODUCT.md section 7); `totp: false` makes one without.
 */
export async function createUser(db: Kysely<Database>, attrs: { admin?: boolean; email?: string; name?: string; totp?: boolean } = {}) {
  seq += 1;
  const email = attrs.email ?? `player${seq}-${Date.now()}@example.com`;
  const totp = attrs.totp ?? attrs.admin ?? false;
  const user = await db
    .insertInto('users')
    .values({ email, name: attrs.name ?? `Игрок ${seq}`, admin: attrs.admin ?? false, totp_secret: totp ? TEST_TOTP_SECRET : null })
    .returningAll()
    .executeTakeFirstOrThrow();
  const token = newToken();
  // A user with TOTP on signed in with the code (an operator's session has shown the second factor).
  await db
    .insertInto('tokens')
    .values({ user_id: user.id, kind: 'access', token_hash: hashToken(token), method: totp ? 'two_factor' : null })
    .execute();
  return { ...user, token, auth: { authorization: `Bearer ${token}` } };
}

export async function firstServerId(db: Kysely<Database>) {
  return (await db.selectFrom('gamesservers').select('id').orderBy('sort_order').executeTakeFirstOrThrow()).id;
}

export async function createWallet(db: Kysely<Database>, userId: number, gamesserverId: number, nick = 'Hero') {
  return db
    .insertInto('wallets')
    .values({ user_id: userId, gamesserver_id: gamesserverId, nick })
    .onConflict((oc) => oc.columns(['user_id', 'gamesserver_id']).doUpdateSet({ nick }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Credits a wallet the way a completed deposit does: from the service's cash, through the ledger. */
export async function fund(db: Kysely<Database>, wallet: { id: number; gamesserver_id: number }, amount: bigint, currency: 1 | 2 = 1) {
  return db.transaction().execute((trx) =>
    post(trx, {
      kind: 'test_funding',
      legs: [
        { account: walletAccount(wallet.id, wallet.gamesserver_id, currency), amount },
        { account: serviceAccount('cash', wallet.gamesserver_id, currency), amount: -amount },
      ],
    }),
  );
}
