import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../../test/harness';

/**
 * Inputs a fuzz of every route (2026-11-26) answered with a 500 or with Fastify's English: each is now
 * the contract's Russian 422 or 404, and what the call would have changed is unchanged.
 */
describe.each(DB_KINDS)('inputs the fuzz found on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const send = (method: 'GET' | 'POST', url: string, auth: Record<string, string>, rawJson?: string) =>
    t.app.inject({ method, url, headers: { ...auth, ...(rawJson ? { 'content-type': 'application/json' } : {}) }, ...(rawJson ? { payload: rawJson } : {}) });
  const russian422 = (res: { statusCode: number; json(): { message: string; errors: Record<string, string[]> } }, field: string) => {
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[field]?.[0]).toMatch(/[а-я]/);
  };

  it('a lone UTF-16 surrogate in free text (JSON "\\ud800") is refused on the field instead of breaking the audit row', async () => {
    const admin = await createUser(t.db.kysely, { admin: true });
    const player = await createUser(t.db.kysely);
    for (const reason of ['\\ud800', 'a\\udfffb']) {
      russian422(await send('POST', `/api/admin/users/${player.id}/block`, admin.auth, `{"reason":"${reason}"}`), 'reason');
    }
    expect((await t.db.kysely.selectFrom('users').select('blocked_at').where('id', '=', player.id).executeTakeFirstOrThrow()).blocked_at).toBeNull();
    // A well-formed pair (an emoji written as two escapes) is ordinary text.
    const ok = await send('POST', `/api/admin/users/${player.id}/block`, admin.auth, '{"reason":"угнан \\ud83d\\ude00"}');
    expect(ok.statusCode).toBe(200);
  });

  it('an operators\u2019 report with one good and one bad bound, a statement from year 1, VIP past year 9999 in UTC: 422 on the field', async () => {
    const admin = await createUser(t.db.kysely, { admin: true });
    const player = await createUser(t.db.kysely);
    for (const url of ['/api/admin/operators/stats?from=abc&to=2026-12-31', '/api/admin/operators/stats/csv?from=2026-01-01&to=abc']) {
      const res = await send('GET', url, admin.auth);
      expect(res.statusCode, url).toBe(422);
    }
    russian422(await send('GET', '/api/admin/operators/stats?from=2026-02-31&to=2026-03-01', admin.auth), 'from');
    for (const q of ['from=0001-01-01', 'from=0000-01-01', 'to=0000-01-01']) {
      const res = await send('GET', `/api/statement.csv?${q}`, player.auth);
      expect(res.statusCode, q).toBe(422);
    }
    russian422(await send('POST', `/api/admin/users/${player.id}/vip`, admin.auth, '{"vip_until":"9999-12-31T23:59:59-14:00"}'), 'vip_until');
    expect((await t.db.kysely.selectFrom('users').select('vip_until').where('id', '=', player.id).executeTakeFirstOrThrow()).vip_until).toBeNull();
  });

  it('a path that is no valid URL component, or an id longer than the router takes, is a Russian 404 with the request id and the security headers', async () => {
    const player = await createUser(t.db.kysely);
    for (const url of ['/api/delete_balance_user/%zz', '/api/delete_balance_user/%C0%AF', `/api/admin/users/${'a'.repeat(5000)}`]) {
      const res = await send('GET', url, player.auth);
      expect(res.statusCode, url.slice(0, 40)).toBe(404);
      expect(res.json()).toEqual({ message: 'Не найдено' });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe.each(DB_KINDS)('inputs the fuzz of 2026-11-29 found on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  const post = (url: string, payload: string | Buffer, auth: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json' }, payload });

  it('an id, page or currency spelled other than in decimal digits (0x1, 1e0, +1, 1.0) is a Russian 422, not read as the number it spells', async () => {
    const admin = await createUser(t.db.kysely, { admin: true });
    const player = await createUser(t.db.kysely);
    const get = (url: string, auth: Record<string, string>) => t.app.inject({ method: 'GET', url, headers: auth });
    const russian422 = (res: { statusCode: number; json(): { errors: Record<string, string[]> } }, field: string) => {
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[field]?.[0]).toMatch(/^[А-Я][а-я]/);
    };
    for (const spelled of ['0x1', '1e0', '+1', '1.0', '%201']) {
      russian422(await get(`/api/auth_varianty_adeny_za_kod/${spelled}`, player.auth), 'id');
      russian422(await get(`/api/admin/users/${spelled === '1e0' ? `${player.id}e0` : spelled.replace('1', String(player.id))}`, admin.auth), 'id');
      russian422(await get(`/api/statement?page=${spelled}`, player.auth), 'page');
      russian422(await get(`/api/admin/requests?currency_type=${spelled}`, admin.auth), 'currency_type');
    }
    expect((await get(`/api/admin/users/${player.id}`, admin.auth)).statusCode).toBe(200);
    expect((await get('/api/statement?page=1&currency_type=1', player.auth)).statusCode).toBe(200);
  });

  it('a value of the wrong type or too long is told so, not «Обязательное поле»; a missing one still is', async () => {
    const wrong = await post('/api/login', '{"email":42,"password":["x"]}');
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors).toEqual({ email: ['Неверный тип значения'], password: ['Неверный тип значения'] });
    const long = await post('/api/web_app', JSON.stringify({ init_data: 'a'.repeat(8193) }));
    expect(long.statusCode).toBe(422);
    expect(long.json().errors).toEqual({ init_data: ['Не длиннее 8192 символов'] });
    const none = await post('/api/login', '{}');
    expect(none.json().errors).toEqual({ email: ['Обязательное поле'], password: ['Обязательное поле'] });
  });

  it('a body that is no UTF-8 is refused as malformed, and nothing is stored', async () => {
    const player = await createUser(t.db.kysely);
    const bad = Buffer.concat([Buffer.from('{"name":"k'), Buffer.from([0xff, 0xfe]), Buffer.from('ey"}')]);
    const res = await post('/api/api_keys', bad, player.auth);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual({ _: ['Некорректный формат запроса'] });
    expect(await t.db.kysely.selectFrom('api_keys').select('id').where('user_id', '=', player.id).execute()).toEqual([]);
    // The same call in UTF-8, Cyrillic included, goes through.
    expect((await post('/api/api_keys', Buffer.from('{"name":"ключ"}'), player.auth)).statusCode).toBe(200);
  });
});

describe.each(DB_KINDS)('a JSON content type with no body on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());
  const post = (url: string, auth: Record<string, string>, payload: string) =>
    t.app.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json' }, payload });

  it('is a call without a body, as without the header: a realtime token, the end of other sessions (review finding: 422 «Некорректный формат запроса»)', async () => {
    // PRODUCT.md: `POST /ably-token` with an empty body. A client that sends the JSON header on every call got 422.
    const player = await createUser(t.db.kysely);
    const token = await post('/api/ably-token', player.auth, '');
    expect(token.statusCode).toBe(200);
    expect(token.json().token).toEqual(expect.any(String));
    const ended = await post('/api/sessions/end_others', player.auth, '');
    expect(ended.statusCode).toBe(200);
    expect(ended.json()).toEqual({ ended: 0 });
  });

  it('a call whose body is required is refused as one sent with no body at all; malformed JSON and a poisoned prototype stay refused', async () => {
    const missing = await post('/api/login', {}, '');
    const bare = await t.app.inject({ method: 'POST', url: '/api/login' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual(bare.json());
    expect(missing.json().errors._).toEqual(['Обязательное поле']);
    for (const payload of ['{"email":', '   ', '{"__proto__":{"admin":true},"email":"a@b.c","password":"x"}']) {
      const res = await post('/api/login', {}, payload);
      expect(res.statusCode, payload).toBe(422);
      expect(res.json().errors, payload).toEqual({ _: ['Некорректный формат запроса'] });
    }
  });
});
