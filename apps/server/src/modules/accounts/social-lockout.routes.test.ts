import { beforeAll, describe, expect, it } from 'vitest';
import { BOT_TOKEN, nextIp, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { signInitData, signWidget } from '../../../test/fakes/telegram';
import { DB_KINDS } from '../../../test/harness';

/**
 * Social sign-ins from an address many players share (a carrier's NAT), tried as an attacker would: only
 * failures count against the address (limits.socialPerIp, 30 in 15 minutes), so junk from it never refuses a
 * sign-in Telegram signed or a Discord callback with the state given to the owner's browser. Each test
 * asserts the victim's outcome.
 */
describe.each(DB_KINDS)('social sign-in behind a shared address on %s', (kind) => {
  const { world, post, get, me } = useAccountsWorld(kind);
  let discord: World['discord'];
  beforeAll(() => {
    ({ discord } = world);
  });
  const now = () => Math.floor(Date.now() / 1000);
  const BUDGET = 30;
  const attacker = (ip: string) => ({ ip, browser: 'attacker-browser-key-0123456789ab' });
  const owner = (ip: string) => ({ ip, browser: 'owner-browser-key-0123456789abcd' });
  const stranger = (ip: string) => ({ ip, browser: 'stranger-browser-key-0123456789a' });

  /** The junk's statuses: the address's failures up to the budget get their own answer, then 429 with a wait. */
  async function expectBudgetThen429(responses: Array<{ statusCode: number; headers: Record<string, unknown>; json: () => { message: string } }>, status: number) {
    expect(responses.slice(0, BUDGET).map((r) => r.statusCode)).toEqual(Array(BUDGET).fill(status));
    expect(responses.slice(BUDGET).map((r) => r.statusCode)).toEqual(Array(responses.length - BUDGET).fill(429));
    const last = responses[responses.length - 1]!;
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.json().message).toMatch(/^Слишком много попыток\. Попробуйте через \d+ (с|мин)$/);
  }

  async function signsIn(res: { statusCode: number; json: () => { access_token: string } }) {
    expect(res.statusCode).toBe(200);
    expect((await me(res.json().access_token)).statusCode).toBe(200);
  }

  it('40 forged Login Widget posts from an address do not keep the genuine signed login from it out; the junk gets 429 past the budget', async () => {
    const ip = nextIp();
    const junk = [];
    for (let i = 0; i < 40; i++) {
      const forged = signWidget({ id: 5580001, first_name: `Вор ${i}`, auth_date: now() }, '1:not-the-bot');
      junk.push(await post('/api/telegram_auth', forged, attacker(ip)));
    }
    await expectBudgetThen429(junk, 401);
    await signsIn(await post('/api/telegram_auth', signWidget({ id: 5580002, first_name: 'Хозяин', auth_date: now() }, BOT_TOKEN), owner(ip)));
  });

  it('40 forged mini app launches from an address do not keep the genuine signed launch from it out; the junk gets 429 past the budget', async () => {
    const ip = nextIp();
    const junk = [];
    for (let i = 0; i < 40; i++) {
      const forged = signInitData([['auth_date', String(now())], ['user', `{"id":5580003,"first_name":"Вор ${i}"}`]], '1:not-the-bot');
      junk.push(await post('/api/web_app', { init_data: forged }, attacker(ip)));
    }
    await expectBudgetThen429(junk, 401);
    const genuine = signInitData([['auth_date', String(now())], ['user', '{"id":5580004,"first_name":"Хозяин"}']], BOT_TOKEN);
    await signsIn(await post('/api/web_app', { init_data: genuine }, owner(ip)));
  });

  it('replayed and stale Telegram data count as failures too, and still leave a fresh signed login in', async () => {
    const ip = nextIp();
    const used = signWidget({ id: 5580005, first_name: 'Вор', auth_date: now() }, BOT_TOKEN);
    await signsIn(await post('/api/telegram_auth', used, attacker(ip)));
    const junk = [];
    for (let i = 0; i < 20; i++) junk.push(await post('/api/telegram_auth', used, attacker(ip)));
    for (let i = 0; i < 20; i++) {
      junk.push(await post('/api/telegram_auth', signWidget({ id: 5580005, first_name: 'Вор', auth_date: now() - 7200 - i }, BOT_TOKEN), attacker(ip)));
    }
    await expectBudgetThen429(junk, 401);
    expect(junk[0]!.json().message).toBe('Эти данные входа Telegram уже использованы. Попробуйте войти ещё раз');
    await signsIn(await post('/api/telegram_auth', signWidget({ id: 5580006, first_name: 'Хозяин', auth_date: now() }, BOT_TOKEN), owner(ip)));
  });

  it('more than 30 players behind one address all sign in with their signed Telegram logins in one window', async () => {
    const ip = nextIp();
    for (let i = 0; i < BUDGET + 6; i++) {
      const id = 5581000 + i;
      const res =
        i % 2 === 0
          ? await post('/api/telegram_auth', signWidget({ id, first_name: `Игрок ${i}`, auth_date: now() }, BOT_TOKEN), { ip, browser: `player-browser-key-000000000${i}` })
          : await post('/api/web_app', { init_data: signInitData([['auth_date', String(now())], ['user', `{"id":${id},"first_name":"Игрок ${i}"}`]], BOT_TOKEN) }, { ip });
      expect(res.statusCode, `player ${i}`).toBe(200);
    }
  });

  it("40 Discord callbacks with a wrong state from an address never reach Discord and do not keep out the owner's callback from it", async () => {
    const ip = nextIp();
    const bait = discord.authorize({ id: '558000000000000001', username: 'mallory' }, (await get('/api/auth_config', attacker(ip))).json().discord.authorize_url);
    const exchangesBefore = discord.exchanges.length;
    const junk = [];
    for (let i = 0; i < 40; i++) {
      // Made-up states, and the attacker's real one posted from a browser it was not given to.
      const payload = i % 2 === 0 ? { ...bait, state: `made-up-state-${i}` } : bait;
      junk.push(await post('/api/discord_auth', payload, i % 2 === 0 ? attacker(ip) : stranger(ip)));
    }
    await expectBudgetThen429(junk, 422);
    expect(discord.exchanges.length).toBe(exchangesBefore);

    const grant = discord.authorize({ id: '558000000000000002', username: 'owner' }, (await get('/api/auth_config', owner(ip))).json().discord.authorize_url);
    await signsIn(await post('/api/discord_auth', grant, owner(ip)));
    expect(discord.exchanges.length).toBe(exchangesBefore + 1);
  });

  it('codes Discord refuses count against the address, and still leave the owner\'s genuine callback from it in', async () => {
    const ip = nextIp();
    const junk = [];
    for (let i = 0; i < BUDGET + 5; i++) {
      // The attacker's own states (one per try, as each is used once) with codes Discord never gave. Past the
      // budget these still reach Discord (before the exchange they look like the owner's own callback) and get 429.
      const grant = discord.authorize({ id: '558000000000000003', username: 'mallory' }, (await get('/api/auth_config', attacker(ip))).json().discord.authorize_url);
      junk.push(await post('/api/discord_auth', { ...grant, code: `not-a-code-${i}` }, attacker(ip)));
    }
    await expectBudgetThen429(junk, 401);
    expect(junk[0]!.json().message).toBe('Discord не подтвердил вход. Попробуйте ещё раз');
    // Cheap junk from the address is refused too now.
    expect((await post('/api/discord_auth', { code: 'c', state: 'made-up', redirect_uri: 'https://adena.test/auth/discord/callback' }, attacker(ip))).statusCode).toBe(429);

    const grant = discord.authorize({ id: '558000000000000004', username: 'owner' }, (await get('/api/auth_config', owner(ip))).json().discord.authorize_url);
    await signsIn(await post('/api/discord_auth', grant, owner(ip)));
  });

  it("Discord limiting our application (its 429) tells the player to try later and counts against no one: the owner's callbacks from a busy address then sign in", async () => {
    const ip = nextIp();
    discord.rateLimitNext(BUDGET + 5);
    const refused = [];
    for (let i = 0; i < BUDGET + 5; i++) {
      const grant = discord.authorize({ id: '558000000000000005', username: 'owner' }, (await get('/api/auth_config', owner(ip))).json().discord.authorize_url);
      refused.push(await post('/api/discord_auth', grant, owner(ip)));
    }
    expect(new Set(refused.map((r) => r.statusCode))).toEqual(new Set([401]));
    expect(refused[0]!.json().message).toBe('Не удалось связаться с Discord. Попробуйте позже');
    const grant = discord.authorize({ id: '558000000000000005', username: 'owner' }, (await get('/api/auth_config', owner(ip))).json().discord.authorize_url);
    await signsIn(await post('/api/discord_auth', grant, owner(ip)));
  });
});
