import type { Kysely } from 'kysely';
import type { Database } from '../src/db/schema';
import { newToken, hashToken } from '../src/lib/tokens';
import { post, serviceAccount, walletAccount } from '../src/modules/ledger/ledger.service';

let seq = 0;

/** A real user row with a live access token. */
export async function createUser(db: Kysely<Database>, attrs: { admin?: boolean; email?: string; name?: string } = {}) {
  seq += 1;
  const email = attrs.email ?? `player${seq}-${Date.now()}@example.com`;
  const user = await db
    .insertInto('users')
    .values({ email, name: attrs.name ?? `Игрок ${seq}`, admin: attrs.admin ?? false })
    .returningAll()
    .executeTakeFirstOrThrow();
  const token = newToken();
  await db.insertInto('tokens').values({ user_id: user.id, kind: 'access', token_hash: hashToken(token) }).execute();
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
