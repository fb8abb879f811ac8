import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../../test/factories';
import { waitFor } from '../../../test/fakes/wait-for';
import { createTestApp, createTestDb, DB_KINDS, holdLocks, lockWaits, type TestApp } from '../../../test/harness';
import { auditLedger } from '../ledger/ledger.service';
import { totpCode } from '../two-factor/totp';

const KK = 1_000_000;
type User = Awaited<ReturnType<typeof createUser>>;

describe.each(DB_KINDS)("the operators' shift on %s", (kind) => {
  let t: TestApp;
  let serverId: number;
  let anna: User;
  let boris: User;
  // The app's clock: tests move it instead of waiting.
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, who: User, payload?: object) =>
    t.app.inject({ method, url, headers: who.auth, ...(payload ? { payload } : {}) });
  const claim = (id: number, who: User) => call('POST', `/api/admin/requests/${id}/claim`, who, {});
  const release = (id: number, who: User) => call('POST', `/api/admin/requests/${id}/release`, who, {});
  /** Support (Boris, with his TOTP code) turns a user's second factor off: the TOTP rescue. */
  const twoFactorOff = async (userId: number) => {
    // A fresh code each time: his last used step is forgotten so the same 30 s window may serve again.
    await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', boris.id).execute();
    return t.app.inject({
      method: 'POST',
      url: `/api/admin/users/${userId}/two_factor_off`,
      headers: { ...boris.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, now()) },
      payload: { reason: 'потерял телефон' },
    });
  };
  const row = (id: number) => t.db.kysely.selectFrom('balance_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const auditOf = (id: number) =>
    t.db.kysely
      .selectFrom('admin_audit_log')
      .select(['admin_id', 'action', 'before', 'after'])
      .where('entity_type', '=', 'balance_request')
      .where('entity_id', '=', String(id))
      .orderBy('id')
      .execute();
  const balanceOf = async (userId: number) =>
    Number((await t.db.kysely.selectFrom('wallets').select('balance').where('user_id', '=', userId).executeTakeFirstOrThrow()).balance);

  /** A player's pending deposit (or withdrawal, holding its amount) on the first server. */
  async function pending(type: 'input' | 'output' = 'input', amount = 2 * KK) {
    const p = await createUser(t.db.kysely);
    const w = await createWallet(t.db.kysely, p.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const res = await call('POST', type === 'input' ? '/api/up_balance_user/' : '/api/down_balance_user/', p, { gamesserver_id: serverId, amount });
    expect(res.statusCode).toBe(200);
    return { player: p, id: res.json().success.id as number };
  }

  beforeAll(async () => {
    t = await createTestApp(kind, { now, ...(kind === 'postgres' ? { db: await createTestDb('postgres', 24) } : {}) });
    serverId = await firstServerId(t.db.kysely);
    anna = await createUser(t.db.kysely, { admin: true, name: 'Анна' });
    boris = await createUser(t.db.kysely, { admin: true, name: 'Борис' });
  });
  afterAll(async () => {
    await t.close();
    if (kind === 'postgres') await t.db.close();
  });

  it('of 20 parallel claims by two operators one operator holds the request; the other gets only 409s naming them', async () => {
    const { id } = await pending();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(id, i % 2 === 0 ? anna : boris)));
    const won = results.filter((r) => r.statusCode === 200);
    expect(won.length).toBeGreaterThan(0);
    const winner = won[0]!.json().success.claimed_by as { id: number; name: string };
    expect([anna.id, boris.id]).toContain(winner.id);
    // Every 200 is the holder's (a re-claim of their own renews it); every refusal names the holder.
    for (const res of won) expect(res.json().success.claimed_by).toEqual(winner);
    const r = await row(id);
    expect(r.claimed_by).toBe(winner.id);
    expect(r.status).toBe('pending');
    for (const res of results.filter((x) => x.statusCode !== 200)) {
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toMatch(winner.id === anna.id ? /Анна/ : /Борис/);
      expect(res.json().claimed_by).toEqual(winner);
    }
    // One claim in the log: the winner's first; their renewals among the 200s are not written.
    const entries = await auditOf(id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ admin_id: winner.id, action: 'request.claim' });
  });

  it("the holder's re-claim renews the claim: it lapses CLAIM_TIMEOUT_MIN after the renewal, not after the first claim", async () => {
    const { id, player } = await pending('output');
    const first = await claim(id, anna);
    expect(first.statusCode).toBe(200);
    // Near the end of the claim Anna is still at work and claims again.
    const timeoutMin = Number(t.config.CLAIM_TIMEOUT_MIN);
    offsetMs += (timeoutMin - 1) * 60_000;
    try {
      const renewed = await claim(id, anna);
      expect(renewed.statusCode).toBe(200);
      expect(renewed.json().success.claimed_by).toEqual({ id: anna.id, name: 'Анна' });
      expect(Date.parse(renewed.json().success.claimed_at)).toBeGreaterThan(Date.parse(first.json().success.claimed_at));
      // Past the first claim's end the renewed claim still stands: Boris can neither take it nor decide it, nor the player cancel.
      offsetMs += 2 * 60_000;
      expect((await claim(id, boris)).statusCode).toBe(409);
      expect((await call('POST', `/api/admin/requests/${id}/complete`, boris, {})).statusCode).toBe(409);
      expect((await call('POST', '/api/delete_request/', player, { id })).statusCode).toBe(409);
      expect((await row(id)).claimed_by).toBe(anna.id);
      // Past the renewed end it lapses as any claim does: the player still cannot cancel (Anna may
      // have handed the adena over in game), Boris may take it over.
      offsetMs += timeoutMin * 60_000;
      expect((await call('POST', '/api/delete_request/', player, { id })).statusCode).toBe(409);
      expect((await claim(id, boris)).statusCode).toBe(200);
      // The shift report measures from when the holder first took it: Anna's renewal kept her start,
      // Boris's takeover starts anew. The log has Anna's claim and Boris's takeover, not the renewal.
      const r = await t.db.kysely.selectFrom('balance_requests').select(['claim_started_at', 'claimed_at']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(r.claim_started_at).toEqual(r.claimed_at);
      const log = await t.db.kysely
        .selectFrom('admin_audit_log')
        .select(['admin_id', 'before'])
        .where('entity_type', '=', 'balance_request')
        .where('entity_id', '=', String(id))
        .where('action', '=', 'request.claim')
        .orderBy('id')
        .execute();
      expect(log.map((l) => l.admin_id)).toEqual([anna.id, boris.id]);
      expect(log[1]!.before).toMatchObject({ claimed_by: anna.id });
    } finally {
      offsetMs = 0;
    }
  });

  it('a renewal (`renew: true`) renews only the caller\'s own standing claim: one that lapsed unseen or was released is not taken back (409), another\'s is not taken', async () => {
    // Review finding: after a laptop's sleep the admin area's keeper renewed a claim that had lapsed meanwhile
    // with a plain claim, which the server grants to anybody, so the operator silently held it again.
    const renew = (id: number, who: User) => call('POST', `/api/admin/requests/${id}/claim`, who, { renew: true });
    const lapsed = 'Ваш захват истёк: возьмите заявку в работу снова';
    const { id } = await pending();
    // Nobody holds it: a renewal takes nothing.
    const free = await renew(id, anna);
    expect(free.statusCode).toBe(409);
    expect(free.json()).toMatchObject({ message: lapsed, errors: { id: [lapsed] } });
    expect((await row(id)).claimed_by).toBeNull();
    expect((await claim(id, anna)).statusCode).toBe(200);
    const timeoutMin = Number(t.config.CLAIM_TIMEOUT_MIN);
    try {
      // While it stands, Anna's renewal renews it; Boris's takes nothing and names Anna.
      offsetMs += (timeoutMin - 1) * 60_000;
      const renewed = await renew(id, anna);
      expect(renewed.statusCode).toBe(200);
      expect(renewed.json().success.claimed_by).toEqual({ id: anna.id, name: 'Анна' });
      const other = await renew(id, boris);
      expect(other.statusCode).toBe(409);
      expect(other.json().claimed_by).toEqual({ id: anna.id, name: 'Анна' });
      // Lapsed unseen (Anna's laptop slept): her renewal is refused and the claim stays lapsed for Boris.
      offsetMs += (timeoutMin + 1) * 60_000;
      const late = await renew(id, anna);
      expect(late.statusCode).toBe(409);
      expect(late.json().message).toBe(lapsed);
      const r = await row(id);
      expect(r.claimed_by).toBe(anna.id);
      expect(r.claimed_at!.getTime()).toBe(Date.parse(renewed.json().success.claimed_at));
      expect((await claim(id, boris)).statusCode).toBe(200);
      // Released: Boris's renewal takes nothing back either; a plain claim still takes a free request.
      expect((await release(id, boris)).statusCode).toBe(200);
      expect((await renew(id, boris)).statusCode).toBe(409);
      expect((await row(id)).claimed_by).toBeNull();
      expect((await claim(id, anna)).statusCode).toBe(200);
    } finally {
      offsetMs = 0;
    }
  });

  it('lists an operator\'s own standing claims of pending requests wherever they are in the queue (`claimed_by`, the admin area renews them)', async () => {
    const a = await pending();
    const b = await pending('output');
    const c = await pending();
    expect((await claim(a.id, anna)).statusCode).toBe(200);
    expect((await claim(b.id, anna)).statusCode).toBe(200);
    expect((await claim(c.id, boris)).statusCode).toBe(200);
    const listed = await call('GET', `/api/admin/requests?status=pending&claimed_by=${anna.id}&per_page=100`, anna);
    expect(listed.statusCode).toBe(200);
    const ids = listed.json().data.map((r: { id: number }) => r.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(ids).not.toContain(c.id);
    expect(listed.json().data.every((r: { claimed_by: { id: number } }) => r.claimed_by.id === anna.id)).toBe(true);
    expect((await call('GET', '/api/admin/requests?claimed_by=0', anna)).statusCode).toBe(422);
    // Standing claims only: a lapsed one is not renewed (taken back) unasked.
    offsetMs += 16 * 60_000;
    try {
      const lapsed = await call('GET', `/api/admin/requests?status=pending&claimed_by=${anna.id}&per_page=100`, anna);
      expect(lapsed.json().data.map((r: { id: number }) => r.id)).not.toEqual(expect.arrayContaining([a.id]));
      expect(lapsed.json().data.map((r: { id: number }) => r.id)).not.toContain(b.id);
    } finally {
      offsetMs -= 16 * 60_000;
    }
    for (const id of [a.id, b.id]) expect((await release(id, anna)).statusCode).toBe(200);
    expect((await release(c.id, boris)).statusCode).toBe(200);
  });

  it('keeps the first claim time through renewals (the shift report measures from it)', async () => {
    const { id } = await pending('input');
    const first = await claim(id, anna);
    offsetMs += 4 * 60_000;
    try {
      expect((await claim(id, anna)).statusCode).toBe(200);
      const r = await t.db.kysely.selectFrom('balance_requests').select(['claim_started_at', 'claimed_at']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(r.claim_started_at!.toISOString()).toBe(first.json().success.claimed_at);
      expect(r.claimed_at!.getTime() - r.claim_started_at!.getTime()).toBeGreaterThanOrEqual(4 * 60_000);
    } finally {
      offsetMs = 0;
    }
  });

  it('answers the claim with the request, its claimer and the moment', async () => {
    const { id } = await pending('output');
    const res = await claim(id, anna);
    expect(res.statusCode).toBe(200);
    expect(res.json().success).toMatchObject({ id, status: 'pending', type: 'output', claimed_by: { id: anna.id, name: 'Анна' }, claimed_at: expect.any(String) });
    const again = await claim(id, boris);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: 'Заявка уже в работе у оператора Анна', claimed_by: { id: anna.id, name: 'Анна' } });
    const queue = (await call('GET', '/api/admin/requests?status=pending&per_page=100', boris)).json();
    const listed = queue.data.find((x: { id: number }) => x.id === id);
    expect(listed.claimed_by).toEqual({ id: anna.id, name: 'Анна' });
    // Every operator's queue says when the claim lapses: CLAIM_TIMEOUT_MIN after it was taken or renewed.
    const lapses = Date.parse(res.json().success.claimed_at) + Number(t.config.CLAIM_TIMEOUT_MIN) * 60_000;
    expect(Date.parse(res.json().success.claim_lapses_at)).toBe(lapses);
    expect(Date.parse(listed.claim_lapses_at)).toBe(lapses);
    // A free request has none.
    expect((await release(id, anna)).json().success).toMatchObject({ claimed_by: null, claimed_at: null, claim_lapses_at: null });
  });

  it("refuses another operator's completion and rejection while the claim stands, and nothing moves", async () => {
    const { id, player } = await pending('output');
    expect((await claim(id, anna)).statusCode).toBe(200);
    const before = await balanceOf(player.id);
    const done = await call('POST', `/api/admin/requests/${id}/complete`, boris, {});
    expect(done.statusCode).toBe(409);
    expect(done.json().message).toMatch(/Анна/);
    const rejected = await call('POST', `/api/admin/requests/${id}/reject`, boris, { reason: 'не нашёл' });
    expect(rejected.statusCode).toBe(409);
    expect((await row(id)).status).toBe('pending');
    expect(await balanceOf(player.id)).toBe(before);
    // The claimer decides; the claim stays on the row for the shift report.
    const mine = await call('POST', `/api/admin/requests/${id}/reject`, anna, { reason: 'персонаж не в игре' });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().success).toMatchObject({ status: 'rejected', processed_by: anna.id, processed_by_name: 'Анна', claimed_by: { id: anna.id } });
    expect(await balanceOf(player.id)).toBe(before + 2 * KK);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it('refuses the player\'s cancel of a request an operator has taken into work: the hold stays for the payout', async () => {
    const { id, player } = await pending('output');
    expect((await claim(id, anna)).statusCode).toBe(200);
    const before = await balanceOf(player.id);
    const cancel = await call('POST', '/api/delete_request/', player, { id });
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json().errors.id).toHaveLength(1);
    expect((await row(id)).status).toBe('pending');
    expect(await balanceOf(player.id)).toBe(before);
    // Once the operator lets it go, the player may cancel and the hold comes back.
    expect((await release(id, anna)).statusCode).toBe(200);
    expect((await call('POST', '/api/delete_request/', player, { id })).statusCode).toBe(200);
    expect(await balanceOf(player.id)).toBe(before + 2 * KK);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it("refuses an operator their own deposit and withdrawal: another operator claims and decides them", async () => {
    const w = await createWallet(t.db.kysely, anna.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const before = await balanceOf(anna.id);
    const ids: number[] = [];
    for (const url of ['/api/up_balance_user/', '/api/down_balance_user/']) {
      // Her withdrawal asks for her TOTP code, as every withdrawal of a player with TOTP on does.
      const headers = { ...anna.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, now()) };
      const res = await t.app.inject({ method: 'POST', url, headers, payload: { gamesserver_id: serverId, amount: 3 * KK } });
      expect(res.statusCode).toBe(200);
      ids.push(res.json().success.id);
    }
    for (const id of ids) {
      for (const attempt of [claim(id, anna), call('POST', `/api/admin/requests/${id}/complete`, anna, {}), call('POST', `/api/admin/requests/${id}/reject`, anna, { reason: 'сама' })]) {
        const res = await attempt;
        expect(res.statusCode).toBe(403);
        expect(res.json().message).toBe('Свою заявку выполняет другой оператор');
      }
      expect(await row(id)).toMatchObject({ status: 'pending', claimed_by: null });
    }
    // Nothing was credited or paid out by her; Boris decides both.
    expect(await balanceOf(anna.id)).toBe(before - 3 * KK);
    expect((await claim(ids[0]!, boris)).statusCode).toBe(200);
    expect((await call('POST', `/api/admin/requests/${ids[0]}/complete`, boris, {})).statusCode).toBe(200);
    expect((await call('POST', `/api/admin/requests/${ids[1]}/reject`, boris, { reason: 'проверка' })).statusCode).toBe(200);
    expect(await balanceOf(anna.id)).toBe(before + 3 * KK);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it("refuses an operator the release of their own withdrawal's lapsed claim: paid out in game, it cannot then be cancelled for a refund", async () => {
    const w = await createWallet(t.db.kysely, anna.id, serverId);
    await fund(t.db.kysely, w, 10n * BigInt(KK));
    const headers = { ...anna.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, now()) };
    await t.db.kysely.updateTable('users').set({ totp_last_step: null }).where('id', '=', anna.id).execute();
    const opened = await t.app.inject({ method: 'POST', url: '/api/down_balance_user/', headers, payload: { gamesserver_id: serverId, amount: 2 * KK } });
    expect(opened.statusCode).toBe(200);
    const id = opened.json().success.id as number;
    const held = await balanceOf(anna.id);
    // Boris takes it, hands the adena over in game, and never presses «Выполнено»; his claim lapses.
    expect((await claim(id, boris)).statusCode).toBe(200);
    offsetMs += 16 * 60_000;
    const released = await release(id, anna);
    expect(released.statusCode).toBe(403);
    expect(released.json().message).toBe('Свою заявку выполняет другой оператор');
    expect((await row(id)).claimed_by).toBe(boris.id);
    // So her cancel as the player still finds it in work, and the hold stays for the payout.
    const cancel = await call('POST', '/api/delete_request/', anna, { id });
    expect(cancel.statusCode).toBe(409);
    expect(await balanceOf(anna.id)).toBe(held);
    expect((await call('POST', `/api/admin/requests/${id}/complete`, boris, {})).statusCode).toBe(200);
    expect(await balanceOf(anna.id)).toBe(held);
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it("an operator who is blocked, loses the admin flag or has TOTP turned off by support lets go of their claims at once: another decides without waiting CLAIM_TIMEOUT_MIN", async () => {
    for (const how of ['block', 'demote', 'two_factor_off'] as const) {
      const gone = await createUser(t.db.kysely, { admin: true, name: 'Уходящий' });
      const [a, b] = [await pending('output'), await pending('input')];
      const other = await pending('input');
      expect((await claim(a.id, gone)).statusCode).toBe(200);
      expect((await claim(b.id, gone)).statusCode).toBe(200);
      expect((await claim(other.id, anna)).statusCode).toBe(200);
      // While the claim stands, Boris is refused.
      expect((await call('POST', `/api/admin/requests/${a.id}/complete`, boris, {})).statusCode).toBe(409);

      const heard: Array<{ name: string; id: number }> = [];
      const spy = vi.spyOn(t.app.deps.realtime, 'publishOperators').mockImplementation((name, data) => {
        heard.push({ name, id: (data as { id: number }).id });
      });
      const changed =
        how === 'block'
          ? await call('POST', `/api/admin/users/${gone.id}/block`, boris, { reason: 'уволен' })
          : how === 'demote'
            ? await call('POST', `/api/admin/users/${gone.id}/admin`, boris, { admin: false })
            : await twoFactorOff(gone.id);
      expect(changed.statusCode).toBe(200);
      // Every open queue hears that both are free again.
      await expect.poll(() => heard.filter((e) => e.name === 'request_released').map((e) => e.id).sort((x, y) => x - y)).toEqual([a.id, b.id]);
      spy.mockRestore();
      for (const id of [a.id, b.id]) {
        expect(await row(id)).toMatchObject({ status: 'pending', claimed_by: null, claimed_at: null });
        expect((await auditOf(id)).at(-1)).toMatchObject({ admin_id: boris.id, action: 'request.release', before: { claimed_by: gone.id }, after: { claimed_by: null, claim_dropped_by: gone.id } });
      }
      // Someone else's claim is untouched.
      expect((await row(other.id)).claimed_by).toBe(anna.id);

      const before = await balanceOf(a.player.id);
      expect((await call('POST', `/api/admin/requests/${a.id}/reject`, boris, { reason: 'нет персонажа' })).statusCode).toBe(200);
      expect(await balanceOf(a.player.id)).toBe(before + 2 * KK);
      expect((await call('POST', `/api/admin/requests/${b.id}/complete`, boris, {})).statusCode).toBe(200);
      expect((await release(other.id, anna)).statusCode).toBe(200);
    }
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it("a claim dropped by its operator's block or demotion still holds the player's cancel: the adena may have changed hands (an operator demoting the one holding their own withdrawal got it twice)", async () => {
    for (const how of ['block', 'demote'] as const) {
      // Vera files a withdrawal; Gleb takes it into work and may be handing the adena over in game.
      const vera = await createUser(t.db.kysely, { admin: true, name: 'Вера' });
      const gleb = await createUser(t.db.kysely, { admin: true, name: 'Глеб' });
      const w = await createWallet(t.db.kysely, vera.id, serverId);
      await fund(t.db.kysely, w, 10n * BigInt(KK));
      const headers = { ...vera.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, now()) };
      const opened = await t.app.inject({ method: 'POST', url: '/api/down_balance_user/', headers, payload: { gamesserver_id: serverId, amount: 2 * KK } });
      expect(opened.statusCode).toBe(200);
      const id = opened.json().success.id as number;
      const held = await balanceOf(vera.id);
      expect((await claim(id, gleb)).statusCode).toBe(200);
      expect((await release(id, vera)).statusCode).toBe(403);
      expect((await call('POST', '/api/delete_request/', vera, { id })).statusCode).toBe(409);

      // Vera, an operator herself, ends Gleb's claim by blocking or demoting him.
      const changed =
        how === 'block'
          ? await call('POST', `/api/admin/users/${gleb.id}/block`, vera, { reason: 'проверка' })
          : await call('POST', `/api/admin/users/${gleb.id}/admin`, vera, { admin: false });
      expect(changed.statusCode).toBe(200);
      expect(await row(id)).toMatchObject({ status: 'pending', claimed_by: null, claim_dropped_by: gleb.id });
      const cancel = await call('POST', '/api/delete_request/', vera, { id });
      expect(cancel.statusCode).toBe(409);
      expect(cancel.json().errors.id).toEqual(['Заявку проверяет оператор, отменить её сейчас нельзя. Дождитесь его решения']);
      expect(await balanceOf(vera.id)).toBe(held);

      // The queue names who held it, so the next operator checks in game first.
      const queue = await call('GET', '/api/admin/requests?status=pending&per_page=100', anna);
      expect(queue.json().data.find((r: { id: number }) => r.id === id)).toMatchObject({ claimed_by: null, claim_dropped_by: { id: gleb.id, name: 'Глеб' } });

      // Another operator takes it, finds nothing was handed over and lets it go: now she may cancel, once.
      const taken = await claim(id, anna);
      expect(taken.statusCode).toBe(200);
      expect(taken.json().success).toMatchObject({ claimed_by: { id: anna.id }, claim_dropped_by: { id: gleb.id } });
      expect((await release(id, anna)).statusCode).toBe(200);
      expect((await row(id)).claim_dropped_by).toBeNull();
      expect((await call('POST', '/api/delete_request/', vera, { id })).statusCode).toBe(200);
      expect(await balanceOf(vera.id)).toBe(held + 2 * KK);
    }
    // Dropped twice (Glafira, then Lev who took it over, removed in turn): the card keeps the first, who may have paid.
    const glafira = await createUser(t.db.kysely, { admin: true, name: 'Глафира' });
    const lev = await createUser(t.db.kysely, { admin: true, name: 'Лев' });
    const { id } = await pending('output');
    expect((await claim(id, glafira)).statusCode).toBe(200);
    expect((await call('POST', `/api/admin/users/${glafira.id}/admin`, boris, { admin: false })).statusCode).toBe(200);
    expect((await claim(id, lev)).statusCode).toBe(200);
    expect((await call('POST', `/api/admin/users/${lev.id}/admin`, boris, { admin: false })).statusCode).toBe(200);
    expect(await row(id)).toMatchObject({ claimed_by: null, claim_dropped_by: glafira.id });
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it.runIf(kind === 'postgres')('a claim under way when its operator is blocked does not outlive the block', async () => {
    const gone = await createUser(t.db.kysely, { admin: true, name: 'Уходящий' });
    const { id } = await pending('output');
    // The request's row is held, so the claim waits inside its transaction (past its sign-in check);
    // the block runs meanwhile. It must either wait for the claim and release it, or leave the claim refused.
    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', id).forUpdate().execute());
    const claimed = claim(id, gone);
    await waitFor(async () => ((await lockWaits(t.db.kysely)) > 0 ? true : undefined), 'the claim to wait');
    let blockDone = false;
    const blocked = call('POST', `/api/admin/users/${gone.id}/block`, boris, { reason: 'уволен' }).then((r) => {
      blockDone = true;
      return r;
    });
    await waitFor(async () => (blockDone || (await lockWaits(t.db.kysely)) > 1 ? true : undefined), 'the block to finish or wait');
    await hold.release();
    const [c, b] = await Promise.all([claimed, blocked]);
    expect(b.statusCode).toBe(200);
    expect([200, 401, 403]).toContain(c.statusCode);
    // Whichever way it went, nobody holds the request: another operator decides it now.
    expect((await row(id)).claimed_by).toBeNull();
    expect((await call('POST', `/api/admin/requests/${id}/reject`, boris, { reason: 'нет персонажа' })).statusCode).toBe(200);
  });

  it.runIf(kind === 'postgres')('a decision under way when its operator is demoted does not deadlock with the demotion (no 500)', async () => {
    for (const decide of ['complete', 'reject'] as const) {
      const gone = await createUser(t.db.kysely, { admin: true, name: 'Уходящий' });
      const { id, player } = await pending('output');
      expect((await claim(id, gone)).statusCode).toBe(200);
      const before = await balanceOf(player.id);
      // The request's row is held: the decision waits for it first, then the demotion (which releases
      // the operator's claims, so it needs that row too) queues behind it.
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', id).forUpdate().execute());
      const decided = call('POST', `/api/admin/requests/${id}/${decide}`, gone, decide === 'reject' ? { reason: 'нет персонажа' } : {});
      await waitFor(async () => ((await lockWaits(t.db.kysely)) > 0 ? true : undefined), 'the decision to wait');
      const demoted = call('POST', `/api/admin/users/${gone.id}/admin`, boris, { admin: false });
      await waitFor(async () => ((await lockWaits(t.db.kysely)) > 1 ? true : undefined), 'the demotion to wait');
      await hold.release();
      const [d, m] = await Promise.all([decided, demoted]);
      expect(m.statusCode).toBe(200);
      expect([200, 403]).toContain(d.statusCode);
      const r = await row(id);
      if (d.statusCode === 200) {
        expect(r.status).toBe(decide === 'complete' ? 'completed' : 'rejected');
        expect(await balanceOf(player.id)).toBe(decide === 'complete' ? before : before + 2 * KK);
      } else {
        expect(r).toMatchObject({ status: 'pending', claimed_by: null });
        expect(await balanceOf(player.id)).toBe(before);
      }
    }
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it.runIf(kind === 'postgres')("an operator completing a player's withdrawal while changing that player's account does not deadlock: a VIP change and the payout both land; a block lands first (no payout) or after it", async () => {
    const payouts = (id: number) =>
      t.db.kysely.selectFrom('ledger_transactions').select('id').where('ref_type', '=', 'balance_request').where('ref_id', '=', BigInt(id)).where('kind', '=', 'withdrawal_payout').execute();
    for (const change of ['vip', 'block'] as const) {
      const { id, player } = await pending('output');
      // Made after the player: the player's id is the lower, so the change takes the player's row first (id order).
      const op = await createUser(t.db.kysely, { admin: true, name: 'Вера' });
      expect(player.id).toBeLessThan(op.id);
      const before = await balanceOf(player.id);
      // A third transaction holds the player's row: the change queues on it first, then the completion
      // (the order a deadlock needs: the change next holds the player and wants the operator's row).
      const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('users').select('id').where('id', '=', player.id).forNoKeyUpdate().execute());
      const changed =
        change === 'vip'
          ? call('POST', `/api/admin/users/${player.id}/vip`, op, { vip_until: new Date(Date.now() + 10 * 86_400_000).toISOString() })
          : call('POST', `/api/admin/users/${player.id}/block`, op, { reason: 'угнан' });
      await waitFor(async () => ((await lockWaits(t.db.kysely, '%users%')) > 0 ? true : undefined), 'the change to wait');
      const completed = call('POST', `/api/admin/requests/${id}/complete`, op, {});
      await waitFor(async () => ((await lockWaits(t.db.kysely, '%users%')) > 1 ? true : undefined), 'the completion to wait');
      await hold.release();
      const [m, c] = await Promise.all([changed, completed]);
      expect(m.statusCode).toBe(200);
      if (change === 'vip') {
        expect(c.statusCode).toBe(200);
        expect(await row(id)).toMatchObject({ status: 'completed', processed_by: op.id });
        expect(await payouts(id)).toHaveLength(1);
      } else if (c.statusCode === 200) {
        // The payout landed first; the block came after it.
        expect(await row(id)).toMatchObject({ status: 'completed' });
        expect(await payouts(id)).toHaveLength(1);
      } else {
        // The block landed first: the withdrawal of a player being blocked is not paid out.
        expect([403, 409]).toContain(c.statusCode);
        expect(await row(id)).toMatchObject({ status: 'pending' });
        expect(await payouts(id)).toEqual([]);
      }
      expect(await balanceOf(player.id)).toBe(before);
    }
    expect(await auditLedger(t.db.kysely)).toMatchObject({ ok: true, problems: [] });
  });

  it.runIf(kind === 'postgres')("a claim that waits on its operator's row while support turns that operator's second factor off is refused (403): the request is held by nobody", async () => {
    const gone = await createUser(t.db.kysely, { admin: true, name: 'Уходящий' });
    const held = await pending('input');
    const next = await pending('input');
    expect((await claim(held.id, gone)).statusCode).toBe(200);
    // The request the operator holds is locked: the change takes both operators' rows, then waits here
    // (releasing the operator's claims) inside its transaction, before it ends their sessions.
    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', held.id).forUpdate().execute());
    const off = twoFactorOff(gone.id);
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%balance_requests%')) > 0 ? true : undefined), 'the change to wait inside its transaction');
    // Past its sign-in check (the session is live until the change commits), the claim waits on its operator's row.
    const claimed = claim(next.id, gone);
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%"users"%for share%')) > 0 ? true : undefined), "the claim to wait on its operator's row");
    await hold.release();
    const [o, c] = await Promise.all([off, claimed]);
    expect(o.statusCode).toBe(200);
    expect(c.statusCode).toBe(403);
    expect(await row(next.id)).toMatchObject({ status: 'pending', claimed_by: null, claimed_at: null });
    expect(await row(held.id)).toMatchObject({ status: 'pending', claimed_by: null });
    // Another operator takes it at once.
    expect((await claim(next.id, anna)).statusCode).toBe(200);
    expect((await release(next.id, anna)).statusCode).toBe(200);
  });

  it.runIf(kind === 'postgres')("a server's settings change that waits on its operator's row while support turns that operator's second factor off is refused (403) and changes nothing", async () => {
    const gone = await createUser(t.db.kysely, { admin: true, name: 'Уходящий' });
    const held = await pending('input');
    expect((await claim(held.id, gone)).statusCode).toBe(200);
    const server = await t.db.kysely.selectFrom('gamesservers').select(['id', 'code_fee_bp']).orderBy('id').executeTakeFirstOrThrow();
    // The change pauses inside its transaction (on the request the operator holds) with both operators' rows taken.
    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('balance_requests').select('id').where('id', '=', held.id).forUpdate().execute());
    const off = twoFactorOff(gone.id);
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%balance_requests%')) > 0 ? true : undefined), 'the change to wait inside its transaction');
    // Past its sign-in check, the settings change writes the server and then waits on its operator's row (the audit's check).
    const changed = call('PUT', `/api/admin/gamesservers/${server.id}`, gone, { code_fee_bp: server.code_fee_bp + 1 });
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%"users"%for share%')) > 0 ? true : undefined), "the change to wait on its operator's row");
    await hold.release();
    const [o, c] = await Promise.all([off, changed]);
    expect(o.statusCode).toBe(200);
    expect(c.statusCode).toBe(403);
    expect((await t.db.kysely.selectFrom('gamesservers').select('code_fee_bp').where('id', '=', server.id).executeTakeFirstOrThrow()).code_fee_bp).toBe(server.code_fee_bp);
    expect(await t.db.kysely.selectFrom('admin_audit_log').select('id').where('admin_id', '=', gone.id).where('action', '=', 'gamesserver.update').execute()).toEqual([]);
  });

  it.runIf(kind === 'postgres')("a player's Telegram unlink and an operator's TOTP rescue of that player: no deadlock; the rescue ends the unlink's session first (401)", async () => {
    const p = await createUser(t.db.kysely, { totp: true });
    await t.db.kysely.updateTable('users').set({ telegram_chat_id: 555_001n }).where('id', '=', p.id).execute();
    await t.db.kysely.insertInto('telegram_link_tokens').values({ token_hash: `h${p.id}`, user_id: p.id, expires_at: new Date(Date.now() + 600_000) }).execute();
    await t.db.kysely.insertInto('recovery_codes').values({ user_id: p.id, code_hash: `rc${p.id}` }).execute();
    // The rescue takes the player's row, then waits here (the recovery codes), before it unlinks the chat.
    const hold = await holdLocks(t.db.kysely, (trx) => trx.selectFrom('recovery_codes').select('id').where('user_id', '=', p.id).forUpdate().execute());
    const rescue = twoFactorOff(p.id);
    await waitFor(async () => ((await lockWaits(t.db.kysely, '%recovery_codes%')) === 1 ? true : undefined), 'the rescue to wait inside its transaction');
    const unlink = t.app.inject({ method: 'DELETE', url: '/api/telegram_link', headers: p.auth });
    await waitFor(async () => ((await lockWaits(t.db.kysely)) === 2 ? true : undefined), 'the unlink to wait for the player');
    await hold.release();
    const [r, u] = await Promise.all([rescue, unlink]);
    // The unlink waited for the player's row, which the rescue held while it ended the player's sessions: checked
    // under that row, the unlink's session is gone (401; since 2026-11-29). The rescue unlinked the chat itself.
    expect([r.statusCode, u.statusCode]).toEqual([200, 401]);
    expect((await t.db.kysely.selectFrom('users').select('telegram_chat_id').where('id', '=', p.id).executeTakeFirstOrThrow()).telegram_chat_id).toBeNull();
  });

  it('lets any operator decide an unclaimed request, as before', async () => {
    const { id } = await pending();
    const res = await call('POST', `/api/admin/requests/${id}/complete`, boris, {});
    expect(res.statusCode).toBe(200);
    expect(res.json().success).toMatchObject({ status: 'completed', claimed_by: null, claimed_at: null });
  });

  it('refuses a claim of a decided or cancelled request, and of one that does not exist', async () => {
    const { id } = await pending();
    expect((await call('POST', `/api/admin/requests/${id}/complete`, anna, {})).statusCode).toBe(200);
    const late = await claim(id, boris);
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ message: 'Заявка уже обработана', status: 'completed' });
    const c = await pending();
    expect((await call('POST', '/api/delete_request/', c.player, { id: c.id })).statusCode).toBe(200);
    expect((await claim(c.id, anna)).json()).toMatchObject({ message: 'Заявка уже отменена' });
    const missing = await claim(2_000_000_000, anna);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Заявка не найдена');
    const bad = await call('POST', '/api/admin/requests/abc/claim', anna, {});
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.id).toBeDefined();
  });

  it('releases by the claimer; by another operator only after CLAIM_TIMEOUT_MIN, when the claim lapses', async () => {
    const { id } = await pending();
    expect((await claim(id, anna)).statusCode).toBe(200);
    const early = await release(id, boris);
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toMatch(/Анна.*15 мин/);
    expect((await row(id)).claimed_by).toBe(anna.id);
    const own = await release(id, anna);
    expect(own.statusCode).toBe(200);
    expect(own.json().success).toMatchObject({ claimed_by: null, claimed_at: null });
    expect((await release(id, anna)).json().message).toBe('Заявку никто не взял в работу');

    expect((await claim(id, anna)).statusCode).toBe(200);
    offsetMs += 14 * 60_000;
    expect((await release(id, boris)).statusCode).toBe(409);
    expect((await call('POST', `/api/admin/requests/${id}/complete`, boris, {})).statusCode).toBe(409);
    offsetMs += 2 * 60_000;
    // Anna has been away 16 minutes: Boris may release it, or decide it.
    const late = await release(id, boris);
    expect(late.statusCode).toBe(200);
    expect((await claim(id, boris)).statusCode).toBe(200);
    expect((await call('POST', `/api/admin/requests/${id}/complete`, anna, {})).statusCode).toBe(409);
    offsetMs += 16 * 60_000;
    // A lapsed claim no longer stands: Anna may take it over, or decide it.
    expect((await call('POST', `/api/admin/requests/${id}/complete`, anna, {})).statusCode).toBe(200);
    const entries = await auditOf(id);
    expect(entries.map((e) => [e.admin_id, e.action])).toEqual([
      [anna.id, 'request.claim'],
      [anna.id, 'request.release'],
      [anna.id, 'request.claim'],
      [boris.id, 'request.release'],
      [boris.id, 'request.claim'],
      [anna.id, 'request.complete'],
    ]);
    expect(entries[3]!.before).toMatchObject({ claimed_by: anna.id });
  });

  describe('the shift report', () => {
    it('counts decisions per operator by type, the median from claim to decision and the rejected share', async () => {
      // processed_at is the database's clock; the app's may have been moved on by the tests above.
      const from = new Date(Date.now() - 60_000).toISOString();
      const decide = async (who: User, type: 'input' | 'output', how: 'complete' | 'reject', claimMinutes: number | null) => {
        const { id } = await pending(type);
        if (claimMinutes !== null) expect((await claim(id, who)).statusCode).toBe(200);
        const res = await call('POST', `/api/admin/requests/${id}/${how}`, who, how === 'reject' ? { reason: 'нет в игре' } : {});
        expect(res.statusCode).toBe(200);
        if (claimMinutes !== null) {
          const processed = (await row(id)).processed_at!;
          await t.db.kysely
            .updateTable('balance_requests')
            // Taken claimMinutes before the decision and renewed a minute before it: the median runs from the first.
            .set({ claim_started_at: new Date(processed.getTime() - claimMinutes * 60_000), claimed_at: new Date(processed.getTime() - 60_000) })
            .where('id', '=', id)
            .execute();
        }
      };
      const carl = await createUser(t.db.kysely, { admin: true, name: '=Карл;"К"' });
      await decide(carl, 'input', 'complete', 2);
      await decide(carl, 'input', 'complete', 4);
      await decide(carl, 'output', 'reject', 10);
      await decide(carl, 'output', 'complete', null);
      const to = new Date(Date.now() + 60_000).toISOString();
      const res = await call('GET', `/api/admin/operators/stats?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, anna);
      expect(res.statusCode).toBe(200);
      const mine = res.json().operators.find((o: { operator: { id: number } }) => o.operator.id === carl.id);
      expect(mine).toEqual({
        operator: { id: carl.id, name: '=Карл;"К"' },
        decided: { input: 2, output: 2 },
        completed: 3,
        rejected: 1,
        rejected_share: 0.25,
        median_minutes: 4,
        unclaimed: 1,
      });

      const csv = await call('GET', `/api/admin/operators/stats/csv?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, anna);
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toMatch(/text\/csv/);
      expect(csv.headers['content-disposition']).toMatch(/attachment/);
      expect(csv.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const lines = csv.body.replace(/^\uFEFF/, '').trim().split('\r\n');
      expect(lines[0]).toBe(
        'Оператор;ID оператора;Пополнений решено;Выводов решено;Всего решено;Выполнено;Отклонено;Доля отказов, %;Медиана от взятия до решения, мин;Решено без взятия в работу;Период с;Период до (не включая)',
      );
      // A name that would start a formula or break the columns is quoted and defused.
      const line = lines.find((l) => l.includes('Карл'))!;
      expect(line.startsWith(`"'=Карл;""К"""`)).toBe(true);
      expect(line).toContain(`;${carl.id};2;2;4;3;1;25;4;1;`);
      expect(line).toMatch(/;\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2};\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
    });

    it('answers 422 with a field for a bad period', async () => {
      const bad = await call('GET', '/api/admin/operators/stats?from=вчера', anna);
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors.from).toEqual(['Дата в формате ГГГГ-ММ-ДД или ISO 8601']);
      const reversed = await call('GET', '/api/admin/operators/stats?from=2025-02-01&to=2025-01-01', anna);
      expect(reversed.statusCode).toBe(422);
      expect(reversed.json().errors.to).toEqual(['Конец периода должен быть не раньше начала']);
      const day = await call('GET', '/api/admin/operators/stats?from=2025-01-01&to=2025-01-01', anna);
      expect(day.json()).toMatchObject({ from: '2024-12-31T21:00:00.000Z', to: '2025-01-01T21:00:00.000Z' });
      // A day the calendar does not have is refused, not read as the first days of the next month.
      for (const q of ['from=2025-02-30', 'from=2025-04-31T10:00:00Z']) {
        const impossible = await call('GET', `/api/admin/operators/stats?${q}`, anna);
        expect(impossible.statusCode).toBe(422);
        expect(impossible.json().errors.from).toEqual(['Дата в формате ГГГГ-ММ-ДД или ISO 8601']);
      }
      // Year 0001 (Moscow's start of it falls in year 0, which the embedded database cannot store) is a 422, not a 500.
      const ancient = await call('GET', '/api/admin/operators/stats?from=0001-01-01&to=0001-01-01', anna);
      expect(ancient.statusCode).toBe(422);
      expect(ancient.json().errors.from).toEqual(['Дата между 2000 и 9999 годами']);
      // The first and last days allowed are Moscow days: 2000-01-01 begins in 1999 by UTC.
      expect((await call('GET', '/api/admin/operators/stats?from=2000-01-01&to=2000-01-01', anna)).statusCode).toBe(200);
      expect((await call('GET', '/api/admin/operators/stats?from=9999-12-31&to=9999-12-31', anna)).statusCode).toBe(200);
      // A moment without an offset is Moscow time, whatever the server's own zone.
      const local = await call('GET', '/api/admin/operators/stats?from=2025-03-01T00:00&to=2025-03-02T00:00', anna);
      expect(local.json()).toMatchObject({ from: '2025-02-28T21:00:00.000Z', to: '2025-03-01T21:00:00.000Z' });
      // One bound alone: the period up to now (or from a day before the end) keeps the same limits.
      const sinceLongAgo = await call('GET', '/api/admin/operators/stats/csv?from=2020-01-01', anna);
      expect(sinceLongAgo.statusCode).toBe(422);
      expect(sinceLongAgo.json().errors.to).toEqual(['Период не длиннее 366 дней']); // where the contract puts it with both bounds
      const fromTomorrow = await call('GET', `/api/admin/operators/stats?from=${new Date(Date.now() + 86_400_000).toISOString()}`, anna);
      expect(fromTomorrow.statusCode).toBe(422);
      expect(fromTomorrow.json().errors.to).toEqual(['Конец периода должен быть не раньше начала']);
      const lastMonth = await call('GET', `/api/admin/operators/stats?from=${new Date(Date.now() - 30 * 86_400_000).toISOString()}`, anna);
      expect(lastMonth.statusCode).toBe(200);
    });
  });
});
