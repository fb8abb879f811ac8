import { parse } from 'csv-parse/sync';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser, createWallet, firstServerId, fund } from '../../../test/factories';
import { startFakeBotApi } from '../../../test/fakes/telegram-bot-api';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, DB_KINDS, type TestApp } from '../../../test/harness';
import { subscribedSocket } from '../../../test/sockets';
import { auditLedger } from '../ledger/ledger.service';
import { STATEMENT_FILES } from './statement.service';

const KK = 1_000_000;
type Player = Awaited<ReturnType<typeof createUser>>;
interface Entry {
  id: number;
  at: string;
  kind: string;
  currency_type: 1 | 2;
  amount: number;
  balance_after: number;
  gamesserver_id: number;
  description: string;
}

const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.disconnect();
});

describe.each(DB_KINDS)('statement, CSV, my codes and decisions on %s', (kind) => {
  let t: TestApp;
  let bot: Awaited<ReturnType<typeof startFakeBotApi>>;
  let serverId: number;
  let serverName: string;
  let otherServerId: number;
  let admin: Player;
  const call = (method: 'GET' | 'POST', url: string, who?: Player, payload?: object) =>
    t.app.inject({ method, url, headers: who?.auth ?? {}, ...(payload ? { payload } : {}) });
  const ok = async (method: 'GET' | 'POST', url: string, who?: Player, payload?: object) => {
    const res = await call(method, url, who, payload);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const walletOf = (userId: number, sid: number) =>
    t.db.kysely.selectFrom('wallets').selectAll().where('user_id', '=', userId).where('gamesserver_id', '=', sid).executeTakeFirstOrThrow();
  /** Every entry of the statement, page by page. */
  const everything = async (who: Player, query = '') => {
    const all: Entry[] = [];
    for (let page = 1; ; page++) {
      const res = await ok('GET', `/api/statement?per_page=7&page=${page}${query}`, who);
      all.push(...res.data);
      if (res.data.length < 7) {
        expect(all).toHaveLength(res.total);
        return all;
      }
    }
  };

  beforeAll(async () => {
    bot = await startFakeBotApi();
    t = await createTestApp(kind, { env: { TELEGRAM_BOT_TOKEN: '1:test', TELEGRAM_BOT_USERNAME: 'adena_test_bot', TELEGRAM_API_URL: bot.url } });
    serverId = await firstServerId(t.db.kysely);
    serverName = (await t.db.kysely.selectFrom('gamesservers').select('name').where('id', '=', serverId).executeTakeFirstOrThrow()).name;
    otherServerId = (await t.db.kysely.selectFrom('gamesservers').select('id').where('id', '<>', serverId).orderBy('id').executeTakeFirstOrThrow()).id;
    admin = await createUser(t.db.kysely, { admin: true });
  });
  afterAll(async () => {
    await t.close();
    await bot.close();
  });

  /** A player who went through every kind of movement; and a second player who activated one of their codes. */
  async function storyPlayer() {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
    await createWallet(t.db.kysely, p.id, otherServerId, 'Hero');
    await fund(t.db.kysely, w, 900n, 2); // adjustment (coins)
    // deposit, completed
    const dep = (await ok('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 50 * KK, currency_type: 1 })).success;
    await ok('POST', `/api/admin/requests/${dep.id}/complete`, admin, {});
    // deposit on the other server
    const dep2 = (await ok('POST', '/api/up_balance_user/', p, { gamesserver_id: otherServerId, amount: 7 * KK, currency_type: 1 })).success;
    await ok('POST', `/api/admin/requests/${dep2.id}/complete`, admin, {});
    // withdrawal rejected, withdrawal cancelled, withdrawal completed
    const w1 = (await ok('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 5 * KK, currency_type: 1 })).success;
    await ok('POST', `/api/admin/requests/${w1.id}/reject`, admin, { reason: 'Нет персонажа в игре' });
    const w2 = (await ok('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 1 })).success;
    await ok('POST', '/api/delete_request/', p, { id: w2.id });
    const w3 = (await ok('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 4 * KK, currency_type: 1 })).success;
    await ok('POST', `/api/admin/requests/${w3.id}/complete`, admin, {});
    // a code bought and cancelled, another bought and activated by someone else, one activated by p
    const c1 = await ok('POST', '/api/show_code/', p, { gamesserver_id: serverId, nominal: 2 * KK, wallet_id: w.id });
    await ok('POST', `/api/codes/${c1.code_id}/cancel`, p);
    const c2 = await ok('POST', '/api/show_code/', p, { gamesserver_id: serverId, nominal: 3 * KK, wallet_id: w.id });
    const other = await createUser(t.db.kysely);
    const ow = await createWallet(t.db.kysely, other.id, serverId, 'Other');
    await fund(t.db.kysely, ow, 20n * BigInt(KK));
    await ok('POST', '/api/activation_code/', other, { sert: c2.sert });
    const c3 = await ok('POST', '/api/show_code/', other, { gamesserver_id: serverId, nominal: 1 * KK, wallet_id: ow.id });
    await ok('POST', '/api/activation_code/', p, { sert: c3.sert });
    // VIP for coins
    await ok('POST', '/api/vip/', p, { months: 1 });
    return { p, w, other, codes: { c1, c2, c3 } };
  }

  describe('GET /api/statement', () => {
    it('lists every kind after its action, newest first, and adds up to the wallets', async () => {
      const { p, other, codes } = await storyPlayer();
      const all = await everything(p);
      const kinds = new Set(all.map((e) => e.kind));
      expect([...kinds].sort()).toEqual(
        ['adjustment', 'code_activation', 'code_purchase', 'code_refund', 'deposit', 'vip', 'withdrawal', 'withdrawal_refund'].sort(),
      );
      expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
      expect(all[0]).toMatchObject({ kind: 'vip', currency_type: 2, amount: -300, balance_after: 600, description: 'Покупка VIP-статуса' });
      const reject = all.find((e) => e.description.startsWith('Возврат: вывод отклонён'));
      expect(reject).toMatchObject({ kind: 'withdrawal_refund', amount: 5 * KK });
      // A code is named by its text masked as «Мои коды» shows it, never by an id the player does not see, nor in full.
      const masked = (sert: string) => sert.replace(/^(ADN-\w{4})-\w{4}-\w{4}-/, '$1-****-****-');
      expect(all.filter((e) => e.kind.startsWith('code_')).map((e) => e.description)).toEqual([
        `Активация кода ${masked(codes.c3.sert)}`,
        `Покупка кода ${masked(codes.c2.sert)}`,
        `Возврат за отменённый код ${masked(codes.c1.sert)}`,
        `Покупка кода ${masked(codes.c1.sert)}`,
      ]);

      // Per wallet and currency: the signed amounts sum to the balance, and each balance_after is the running sum.
      for (const sid of [serverId, otherServerId]) {
        const w = await walletOf(p.id, sid);
        for (const cur of [1, 2] as const) {
          const mine = all.filter((e) => e.gamesserver_id === sid && e.currency_type === cur).reverse();
          let running = 0;
          for (const e of mine) {
            running += e.amount;
            expect(e.balance_after).toBe(running);
          }
          expect(running).toBe(Number(cur === 1 ? w.balance : w.balance_second));
        }
      }

      // balance_after is what the ledger recorded for that entry.
      const ledger = await t.db.kysely.selectFrom('ledger_entries').select(['id', 'amount', 'balance_after']).where('id', 'in', all.map((e) => BigInt(e.id))).execute();
      expect(ledger).toHaveLength(all.length);
      for (const row of ledger) {
        const e = all.find((x) => x.id === Number(row.id))!;
        expect([e.amount, e.balance_after]).toEqual([Number(row.amount), Number(row.balance_after)]);
      }

      // Another user's entries never appear; theirs are theirs.
      const theirs = await everything(other);
      expect(theirs.some((e) => all.some((m) => m.id === e.id))).toBe(false);
      expect(theirs.map((e) => e.kind)).toContain('code_activation');
      expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
    });

    it('filters by server and currency', async () => {
      const { p } = await storyPlayer();
      const coins = await everything(p, '&currency_type=2');
      expect(coins.map((e) => e.kind).sort()).toEqual(['adjustment', 'vip']);
      const other = await everything(p, `&gamesserver_id=${otherServerId}`);
      expect(other).toHaveLength(1);
      expect(other[0]).toMatchObject({ kind: 'deposit', amount: 7 * KK, balance_after: 7 * KK, gamesserver_id: otherServerId });
    });

    it('pages under before_id: a movement between page 1 and page 2 repeats nothing on page 2, with filters or without', async () => {
      const p = await createUser(t.db.kysely);
      const w = await createWallet(t.db.kysely, p.id, serverId, 'Anchor');
      for (let i = 1; i <= 4; i++) await fund(t.db.kysely, w, BigInt(i) * 100n);
      await fund(t.db.kysely, w, 7n, 2);
      for (const filter of ['', `&gamesserver_id=${serverId}&currency_type=1`]) {
        const first = await ok('GET', `/api/statement?per_page=2&page=1${filter}`, p);
        expect(first.data).toHaveLength(2);
        const anchor: number = first.data[0].id;
        await fund(t.db.kysely, w, 1n);
        // Without the anchor page 2 starts with page 1's last line again: as before.
        const drifted = await ok('GET', `/api/statement?per_page=2&page=2${filter}`, p);
        expect(drifted.data[0].id).toBe(first.data[1].id);
        const second = await ok('GET', `/api/statement?per_page=2&page=2&before_id=${anchor}${filter}`, p);
        expect(second.data).toHaveLength(2);
        const firstIds = first.data.map((e: Entry) => e.id);
        const secondIds = second.data.map((e: Entry) => e.id);
        expect(secondIds.some((id: number) => firstIds.includes(id))).toBe(false);
        expect(Math.max(...secondIds)).toBeLessThan(Math.min(...firstIds));
        expect(second.total).toBe(first.total);
        expect(drifted.total).toBe(first.total + 1);
        expect(await ok('GET', `/api/statement?per_page=2&page=1&before_id=${anchor}${filter}`, p)).toEqual(first);
      }
    });

    it("before_id only bounds the caller's own entries: another player's id shows nothing of theirs", async () => {
      const [p, q] = [await createUser(t.db.kysely), await createUser(t.db.kysely)];
      const pw = await createWallet(t.db.kysely, p.id, serverId, 'Mine');
      const qw = await createWallet(t.db.kysely, q.id, serverId, 'Theirs');
      // Interleaved: each one's entries lie below the other's newest.
      for (let i = 0; i < 3; i++) {
        await fund(t.db.kysely, qw, 20n);
        await fund(t.db.kysely, pw, 10n);
      }
      const theirs = await everything(q);
      const mine = await everything(p);
      expect(theirs).toHaveLength(3);
      for (const anchor of [theirs[0]!.id, mine[0]!.id, Number.MAX_SAFE_INTEGER]) {
        const res = await ok('GET', `/api/statement?per_page=100&before_id=${anchor}`, p);
        expect(res.data.length).toBeGreaterThan(0);
        expect(res.data.every((e: Entry) => mine.some((m) => m.id === e.id))).toBe(true);
        expect(res.data.some((e: Entry) => theirs.some((x) => x.id === e.id))).toBe(false);
        expect(res.total).toBe(mine.filter((m) => m.id <= anchor).length);
      }
      // Their oldest entry is older than any of mine: under it my statement is empty, never theirs.
      expect(await ok('GET', `/api/statement?before_id=${theirs.at(-1)!.id}`, p)).toEqual({ data: [], total: 0 });
    });

    it('answers 401 to an anonymous caller and 422 with Russian field messages to a bad query', async () => {
      expect((await call('GET', '/api/statement')).statusCode).toBe(401);
      const p = await createUser(t.db.kysely);
      const bad = await call('GET', '/api/statement?currency_type=3&page=0&gamesserver_id=abc', p);
      expect(bad.statusCode).toBe(422);
      expect(Object.keys(bad.json().errors).sort()).toEqual(['currency_type', 'gamesserver_id', 'page']);
      expect(bad.json().errors.currency_type).toEqual(['Неверная валюта']);
      expect((await call('GET', '/api/statement?per_page=101', p)).statusCode).toBe(422);
      for (const badId of ['0', '-3', 'abc', '1.5', '9007199254740993']) {
        const res = await call('GET', `/api/statement?before_id=${badId}`, p);
        expect(res.statusCode, badId).toBe(422);
        expect(res.json().errors.before_id).toEqual(['Некорректный идентификатор']);
      }
    });
  });

  describe('GET /api/statement.csv', () => {
    it('caps the files one user downloads (each reads every entry of its period); another user still downloads', async () => {
      const p = await createUser(t.db.kysely);
      for (let i = 0; i < STATEMENT_FILES.limit; i++) expect((await call('GET', '/api/statement.csv', p)).statusCode).toBe(200);
      const refused = await call('GET', '/api/statement.csv', p);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.json().message).toMatch(/[а-я]/);
      // The web app's one-time links count the same files, and say so when asked for one more.
      const link = await call('POST', '/api/statement/download_token', p, {});
      expect(link.statusCode).toBe(429);
      const other = await createUser(t.db.kysely);
      expect((await call('GET', '/api/statement.csv', other)).statusCode).toBe(200);
      const otherLink = await call('POST', '/api/statement/download_token', other, {});
      expect(otherLink.statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `/api/statement.csv?token=${otherLink.json().token}` })).statusCode).toBe(200);
    });


    it('is the same rows as the statement: BOM, ; separators, Russian headers, ru-RU dates, whole amounts', async () => {
      const { p } = await storyPlayer();
      const res = await call('GET', '/api/statement.csv', p);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="statement.csv"');
      expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const rows = parse(res.rawPayload, { bom: true, delimiter: ';', columns: true }) as Record<string, string>[];
      expect(Object.keys(rows[0]!)).toEqual(['Дата (МСК)', 'Сервер', 'Валюта', 'Операция', 'Сумма', 'Остаток после', 'Описание']);
      const json = (await everything(p)).reverse(); // the file runs oldest first
      expect(rows).toHaveLength(json.length);
      const servers = await t.db.kysely.selectFrom('gamesservers').select(['id', 'name']).execute();
      rows.forEach((r, i) => {
        const e = json[i]!;
        expect(r['Дата (МСК)']).toMatch(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/);
        const [d, m, y] = r['Дата (МСК)']!.slice(0, 10).split('.');
        const moscow = new Date(new Date(e.at).getTime() + 3 * 3600_000).toISOString();
        expect(`${y}-${m}-${d}`).toBe(moscow.slice(0, 10));
        expect(r.Сервер).toBe(servers.find((s) => s.id === e.gamesserver_id)!.name);
        expect(r.Валюта).toBe(e.currency_type === 1 ? 'Адена' : 'Монеты эйнхасад');
        expect(r.Сумма).toBe(String(e.amount));
        expect(r['Остаток после']).toBe(String(e.balance_after));
        expect(r.Описание).toBe(e.description);
      });
      expect(rows.find((r) => r.Операция === 'Активация кода')).toBeDefined();

      // The server filter; a period that ends before today holds nothing.
      const other = parse((await call('GET', `/api/statement.csv?gamesserver_id=${otherServerId}`, p)).rawPayload, { bom: true, delimiter: ';', columns: true });
      expect(other).toHaveLength(1);
      // The currency filter, as the screen's: the file holds what the screen shows.
      for (const currency of [1, 2] as const) {
        const only = parse((await call('GET', `/api/statement.csv?currency_type=${currency}`, p)).rawPayload, { bom: true, delimiter: ';', columns: true }) as Record<string, string>[];
        expect(only).toHaveLength(json.filter((e) => e.currency_type === currency).length);
        expect(only.length).toBeGreaterThan(0);
        expect(new Set(only.map((r) => r.Валюта))).toEqual(new Set([currency === 1 ? 'Адена' : 'Монеты эйнхасад']));
      }
      const old = await call('GET', '/api/statement.csv?from=2020-01-01&to=2020-12-31', p);
      expect(old.headers['content-disposition']).toBe('attachment; filename="statement-2020-01-01-2020-12-31.csv"');
      expect(parse(old.rawPayload, { bom: true, delimiter: ';', columns: true })).toHaveLength(0);
      // Yesterday to today in Moscow time: the entries made seconds ago, even if Moscow's midnight passed since.
      const moscowDay = (ms: number) => new Date(ms + 3 * 3600_000).toISOString().slice(0, 10);
      const [yesterday, today] = [moscowDay(Date.now() - 86_400_000), moscowDay(Date.now())];
      expect(parse((await call('GET', `/api/statement.csv?from=${yesterday}&to=${today}`, p)).rawPayload, { bom: true, delimiter: ';', columns: true })).toHaveLength(json.length);
    });

    it('downloads through a one-time token that only its owner gets and that works once', async () => {
      const { p } = await storyPlayer();
      const intruder = await createUser(t.db.kysely);
      expect((await call('POST', '/api/statement/download_token')).statusCode).toBe(401);
      const { token, expires_at } = await ok('POST', '/api/statement/download_token', p, {});
      expect(new Date(expires_at).getTime() - Date.now()).toBeLessThanOrEqual(2 * 60_000);
      const stored = await t.db.kysely.selectFrom('tokens').select('token_hash').where('user_id', '=', p.id).where('kind', '=', 'download').execute();
      expect(stored.map((r) => r.token_hash)).not.toContain(token);

      // The intruder presenting the token with their own bearer still gets the token owner's file only once, and it is p's file.
      const first = await t.app.inject({ method: 'GET', url: `/api/statement.csv?token=${token}` });
      expect(first.statusCode).toBe(200);
      const rows = parse(first.rawPayload, { bom: true, delimiter: ';', columns: true });
      expect(rows).toHaveLength((await everything(p)).length);
      const again = await call('GET', `/api/statement.csv?token=${token}`, intruder);
      expect(again.statusCode).toBe(401);
      expect(again.json().message).toBe('Ссылка на выписку устарела: скачайте файл ещё раз');
      expect((await call('GET', '/api/statement.csv?token=made-up')).statusCode).toBe(401);
      // A token of another kind (a socket token) opens nothing.
      const socketToken = (await ok('POST', '/api/ably-token', p, {})).token;
      expect((await call('GET', `/api/statement.csv?token=${socketToken}`)).statusCode).toBe(401);
    });

    it('a HEAD of a download link (a client that looks before it fetches) does not spend it', async () => {
      const { p } = await storyPlayer();
      const { token } = await ok('POST', '/api/statement/download_token', p, {});
      const look = await t.app.inject({ method: 'HEAD', url: `/api/statement.csv?token=${token}` });
      expect(look.statusCode).not.toBe(200);
      const fetched = await t.app.inject({ method: 'GET', url: `/api/statement.csv?token=${token}` });
      expect(fetched.statusCode).toBe(200);
      expect(fetched.headers['content-type']).toBe('text/csv; charset=utf-8');
    });

    it('a download link asked from a session that has ended since opens nothing (a logout, a revoke, a password change)', async () => {
      const { p } = await storyPlayer();
      const { token } = await ok('POST', '/api/statement/download_token', p, {});
      expect((await call('GET', '/api/logout', p)).statusCode).toBe(200);
      const late = await t.app.inject({ method: 'GET', url: `/api/statement.csv?token=${token}` });
      expect(late.statusCode).toBe(401);
      expect(late.json().message).toBe('Ссылка на выписку устарела: скачайте файл ещё раз');
    });

    it('answers 401 without a bearer or token and 422 to bad dates', async () => {
      expect((await call('GET', '/api/statement.csv')).statusCode).toBe(401);
      const p = await createUser(t.db.kysely);
      const bad = await call('GET', '/api/statement.csv?from=2024-02-30&to=yesterday', p);
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors).toMatchObject({ from: ['Такой даты нет'], to: ['Укажите дату в виде ГГГГ-ММ-ДД'] });
      const backwards = await call('GET', '/api/statement.csv?from=2024-02-02&to=2024-02-01', p);
      expect(backwards.statusCode).toBe(422);
      expect(backwards.json().errors).toEqual({ to: ['Конец периода должен быть не раньше начала'] });
    });
  });

  describe('GET /api/my_codes', () => {
    it('lists every code the caller issued, active first, with filters; never another user\'s', async () => {
      const { p, codes } = await storyPlayer();
      const fresh = await ok('POST', '/api/show_code/', p, { gamesserver_id: serverId, nominal: 1 * KK, wallet_id: (await walletOf(p.id, serverId)).id });
      const mine = await ok('GET', '/api/my_codes', p);
      expect(mine.total).toBe(3);
      expect(mine.data.map((c: { id: number; status: string }) => [c.id, c.status])).toEqual([
        [fresh.code_id, 'active'],
        [codes.c2.code_id, 'activated'],
        [codes.c1.code_id, 'cancelled'],
      ]);
      expect(mine.data[1].activated_at).toEqual(expect.any(String));
      expect(mine.data[1].sert).toBe(codes.c2.sert);
      // The code p activated is the other user's: not p's to list.
      expect(mine.data.map((c: { id: number }) => c.id)).not.toContain(codes.c3.code_id);
      expect((await ok('GET', '/api/my_codes?status=cancelled', p)).data.map((c: { id: number }) => c.id)).toEqual([codes.c1.code_id]);
      expect((await ok('GET', `/api/my_codes?gamesserver_id=${otherServerId}`, p)).total).toBe(0);
      expect((await ok('GET', '/api/my_codes?page=2', p)).data).toEqual([]);

      const stranger = await createUser(t.db.kysely);
      expect(await ok('GET', '/api/my_codes', stranger)).toEqual({ data: [], total: 0 });
    });

    it('answers 401 to an anonymous caller and 422 to a bad filter', async () => {
      expect((await call('GET', '/api/my_codes')).statusCode).toBe(401);
      const p = await createUser(t.db.kysely);
      const bad = await call('GET', '/api/my_codes?status=lost&page=-1', p);
      expect(bad.statusCode).toBe(422);
      expect(Object.keys(bad.json().errors).sort()).toEqual(['page', 'status']);
    });
  });

  describe('request_status', () => {
    async function listen() {
      if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
      return `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    }
    async function socketOf(who: Player) {
      const { socket, messages } = await subscribedSocket(await listen(), await ok('POST', '/api/ably-token', who, {}));
      sockets.push(socket);
      return messages;
    }

    it('tells the player of a completion and a rejection, with a Telegram message to a linked player; nobody else hears', async () => {
      const p = await createUser(t.db.kysely);
      await t.db.kysely.updateTable('users').set({ telegram_chat_id: 4242n }).where('id', '=', p.id).execute();
      const w = await createWallet(t.db.kysely, p.id, serverId, 'Hero');
      await fund(t.db.kysely, w, 10n * BigInt(KK));
      const bystander = await createUser(t.db.kysely);
      const heard = await socketOf(p);
      const overheard = await socketOf(bystander);

      const dep = (await ok('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 25 * KK, currency_type: 1 })).success;
      await ok('POST', `/api/admin/requests/${dep.id}/complete`, admin, {});
      const done = await waitFor(() => heard.find((m) => m.name === 'request_status' && m.data.id === dep.id), 'request_status of the deposit');
      expect(done.data).toEqual({ id: dep.id, type: 'input', status: 'completed', amount: 25 * KK, currency_type: 1, gamesserver_id: serverId, comment: null });

      const wd = (await ok('POST', '/api/down_balance_user/', p, { gamesserver_id: serverId, amount: 2 * KK, currency_type: 1 })).success;
      await ok('POST', `/api/admin/requests/${wd.id}/reject`, admin, { reason: 'Персонаж не пришёл' });
      const rejected = await waitFor(() => heard.find((m) => m.name === 'request_status' && m.data.id === wd.id), 'request_status of the withdrawal');
      expect(rejected.data).toMatchObject({ type: 'output', status: 'rejected', amount: 2 * KK, comment: 'Персонаж не пришёл' });
      // The balance event of the refund comes before the decision.
      const order = heard.map((m) => m.name);
      expect(order.lastIndexOf('balance')).toBeLessThan(order.lastIndexOf('request_status'));

      await waitFor(() => (bot.sent.filter((m) => m.chat_id === 4242).length === 2 ? true : undefined), 'two Telegram messages');
      expect(bot.sent.filter((m) => m.chat_id === 4242).map((m) => m.text)).toEqual([
        `${serverName}: пополнение на 25\u00a0000\u00a0000 аден зачислено`,
        `${serverName}: вывод 2\u00a0000\u00a0000 аден отклонён: Персонаж не пришёл`,
      ]);
      expect(overheard.some((m) => m.name === 'request_status')).toBe(false);
      // The bot has the second message; the job marks its notice sent once Telegram's answer is back.
      const notices = () => t.db.kysely.selectFrom('telegram_notices').select(['kind', 'request_id', 'status']).where('user_id', '=', p.id).orderBy('id').execute();
      await expect.poll(notices).toEqual([
        { kind: 'request_decision', request_id: dep.id, status: 'sent' },
        { kind: 'request_decision', request_id: wd.id, status: 'sent' },
      ]);
    });

    it('records no Telegram notice for a player without Telegram, and none for a refused decision', async () => {
      const p = await createUser(t.db.kysely);
      await createWallet(t.db.kysely, p.id, serverId, 'Hero');
      const dep = (await ok('POST', '/api/up_balance_user/', p, { gamesserver_id: serverId, amount: 3 * KK, currency_type: 1 })).success;
      await ok('POST', `/api/admin/requests/${dep.id}/complete`, admin, {});
      expect((await call('POST', `/api/admin/requests/${dep.id}/reject`, admin, { reason: 'поздно' })).statusCode).toBe(409);
      expect(await t.db.kysely.selectFrom('telegram_notices').selectAll().where('user_id', '=', p.id).execute()).toEqual([]);
    });
  });
});
