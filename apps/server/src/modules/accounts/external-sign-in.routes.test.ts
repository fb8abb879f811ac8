import { beforeAll, describe, expect, it } from 'vitest';
import { BOT_TOKEN, DISCORD, type AccountsWorld as World, useAccountsWorld } from '../../../test/accounts-app';
import { signInitData, signWidget } from '../../../test/fakes/telegram';
import { DB_KINDS } from '../../../test/harness';
import { hashToken } from '../../lib/tokens';

describe.each(DB_KINDS)('Discord and Telegram sign-in on %s', (kind) => {
  const { world, post, get, me, registerByEmail, registerByPhone } = useAccountsWorld(kind);
  let db: World['db'];
  let bare: World['bare'];
  let discord: World['discord'];
  beforeAll(() => {
    ({ db, bare, discord } = world);
  });

  describe('Discord', () => {
    it('offers Discord and Telegram in auth_config, each Discord link with its own state and S256 challenge', async () => {
      const a = (await get('/api/auth_config')).json();
      const b = (await get('/api/auth_config')).json();
      expect(a.telegram).toEqual({ bot_username: 'adena_test_bot', bot_id: 7000000123 });
      expect(a.discord.client_id).toBe(DISCORD.id);
      const q = new URL(a.discord.authorize_url).searchParams;
      expect(a.discord.authorize_url).toMatch(/^https:\/\/discord\.com\/oauth2\/authorize\?/);
      expect(Object.fromEntries(q)).toMatchObject({
        response_type: 'code',
        client_id: DISCORD.id,
        scope: 'identify email',
        redirect_uri: 'https://adena.test/auth/discord/callback',
        code_challenge_method: 'S256',
      });
      expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
      expect(q.get('state')).not.toBe(new URL(b.discord.authorize_url).searchParams.get('state'));
      // Stored hashed with its verifier, never in clear.
      const row = await db.kysely.selectFrom('oauth_states').selectAll().where('state_hash', '=', hashToken(q.get('state')!)).executeTakeFirstOrThrow();
      expect(row.code_verifier).not.toBe(q.get('code_challenge'));
      expect((await get('/api/auth_config', { app: bare })).json()).toEqual({ discord: null, telegram: null });
    });

    it('signs in with Discord: a new account the first time, the same one the next time', async () => {
      const who = { id: '987654321098765432', username: 'shadow', global_name: 'Тень', email: null, verified: false };
      const first = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      expect(first.statusCode).toBe(200);
      expect(first.json().user).toMatchObject({ name: 'Тень', email: null });
      const row = await db.kysely.selectFrom('users').select('discord_id').where('id', '=', first.json().user.id).executeTakeFirstOrThrow();
      expect(row.discord_id).toBe('987654321098765432');
      const second = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      expect(second.json().user.id).toBe(first.json().user.id);
    });

    it('links Discord to the account with the same verified email, and only a verified one', async () => {
      const { email, user } = await registerByEmail();
      const unverified = await post(
        '/api/discord_auth',
        discord.authorize({ id: '111000111000111000', username: 'sneaky', email, verified: false }, (await get('/api/auth_config')).json().discord.authorize_url),
      );
      expect(unverified.statusCode).toBe(200);
      expect(unverified.json().user.id).not.toBe(user.id);
      expect(unverified.json().user.email).toBeNull();

      const verified = await post(
        '/api/discord_auth',
        discord.authorize({ id: '222000222000222000', username: 'owner', email: email.toUpperCase(), verified: true }, (await get('/api/auth_config')).json().discord.authorize_url),
      );
      expect(verified.statusCode).toBe(200);
      expect(verified.json().user.id).toBe(user.id);
    });

    it('refuses an unknown or reused state, another redirect_uri, and a code Discord does not accept', async () => {
      const who = { id: '333000333000333000', username: 'x' };
      const grant = discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url);
      const forged = await post('/api/discord_auth', { ...grant, state: 'made-up-state' });
      expect(forged.statusCode).toBe(422);
      expect(forged.json().errors.state[0]).toMatch(/устарел/);
      expect((await post('/api/discord_auth', grant)).statusCode).toBe(200);
      // The state was used up by the first sign-in.
      expect((await post('/api/discord_auth', grant)).statusCode).toBe(422);

      const other = discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url);
      expect((await post('/api/discord_auth', { ...other, redirect_uri: 'https://evil.test/auth/discord/callback' })).statusCode).toBe(422);

      const badCode = discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url);
      const refused = await post('/api/discord_auth', { ...badCode, code: 'not-a-code' });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().message).toBe('Discord не подтвердил вход. Попробуйте ещё раз');
      // The exchange carried the PKCE verifier: Discord's side checked it against the challenge.
      expect(discord.exchanges.filter((e) => e.ok).length).toBeGreaterThan(0);
    });

    it('refuses a blocked player coming through Discord', async () => {
      const who = { id: '444000444000444000', username: 'banned' };
      const first = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      await db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', first.json().user.id).execute();
      const again = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      expect(again.statusCode).toBe(403);
    });

    it('answers 404 in Russian when Discord is not configured', async () => {
      const res = await post('/api/discord_auth', { code: 'c', state: 's', redirect_uri: 'https://adena.test/auth/discord/callback' }, { app: bare });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe('Вход через Discord не настроен');
    });
  });

  describe('Telegram', () => {
    const now = () => Math.floor(Date.now() / 1000);

    it('signs in with the Login Widget and finds the same player from the mini app', async () => {
      const widget = signWidget({ id: 5550001, first_name: 'Олег', last_name: 'Т', username: 'oleg', auth_date: now() }, BOT_TOKEN);
      const res = await post('/api/telegram_auth', widget);
      expect(res.statusCode).toBe(200);
      expect(res.json().user).toMatchObject({ name: 'Олег Т', telegram_linked: true, email: null });

      const initData = signInitData(
        [
          ['user', '{"id":5550001,"first_name":"Олег","last_name":"Т","username":"oleg","language_code":"ru","allows_write_to_pm":true}'],
          ['chat_instance', '-7001'],
          ['chat_type', 'private'],
          ['auth_date', String(now())],
          ['signature', 'c2lnbmF0dXJlLW9mLXRlbGVncmFt'],
        ],
        BOT_TOKEN,
      );
      const mini = await post('/api/web_app', { init_data: initData });
      expect(mini.statusCode).toBe(200);
      expect(mini.json().user.id).toBe(res.json().user.id);
      const row = await db.kysely.selectFrom('users').select('telegram_id').where('id', '=', res.json().user.id).executeTakeFirstOrThrow();
      expect(row.telegram_id).toBe(5550001n);
    });

    it('the user object says whether the account has a password: not one made by Telegram or Discord, yes one registered by email or phone', async () => {
      // Chromium walk of the mini app: the profile offered a Telegram player a password change that could only be refused.
      const tg = await post('/api/telegram_auth', signWidget({ id: 5550010, first_name: 'Без пароля', auth_date: now() }, BOT_TOKEN));
      expect(tg.statusCode).toBe(200);
      expect(tg.json().user.has_password).toBe(false);
      expect((await me(tg.json().access_token)).json()).toMatchObject({ id: tg.json().user.id, has_password: false });
      const who = { id: '555000555000555000', username: 'nopass' };
      const ds = await post('/api/discord_auth', discord.authorize(who, (await get('/api/auth_config')).json().discord.authorize_url));
      expect(ds.statusCode).toBe(200);
      expect((await me(ds.json().access_token)).json()).toMatchObject({ id: ds.json().user.id, has_password: false });
      const byEmail = await registerByEmail();
      expect(byEmail.user).toMatchObject({ has_password: true });
      expect((await me(byEmail.access_token)).json()).toMatchObject({ id: byEmail.user.id, has_password: true });
      const byPhone = await registerByPhone();
      expect((await me(byPhone.access_token)).json()).toMatchObject({ id: byPhone.user.id, has_password: true });
    });

    it('a long name is cut between characters, never inside an emoji', async () => {
      const name = `${'а'.repeat(63)}🙂🙂`;
      const res = await post('/api/telegram_auth', signWidget({ id: 5550009, first_name: name, auth_date: now() }, BOT_TOKEN));
      expect(res.statusCode).toBe(200);
      expect(res.json().user.name).toBe(`${'а'.repeat(63)}🙂`);
    });

    it('refuses forged and stale widget logins', async () => {
      const good = signWidget({ id: 5550002, first_name: 'A', auth_date: now() }, BOT_TOKEN);
      const forged = await post('/api/telegram_auth', { ...good, id: 5550003 });
      expect(forged.statusCode).toBe(401);
      expect(forged.json().message).toBe('Не удалось проверить данные Telegram. Попробуйте войти ещё раз');
      const otherBot = await post('/api/telegram_auth', signWidget({ id: 5550002, first_name: 'A', auth_date: now() }, '1:other'));
      expect(otherBot.statusCode).toBe(401);
      const stale = await post('/api/telegram_auth', signWidget({ id: 5550002, first_name: 'A', auth_date: now() - 86_401 }, BOT_TOKEN));
      expect(stale.statusCode).toBe(401);
      expect(stale.json().message).toBe('Данные входа Telegram устарели. Попробуйте войти ещё раз');
      const malformed = await post('/api/telegram_auth', { id: 'abc', first_name: 'A', auth_date: now(), hash: 'zz' });
      expect(malformed.statusCode).toBe(422);
      expect(await db.kysely.selectFrom('users').select('id').where('telegram_id', 'in', [5550002n, 5550003n]).execute()).toEqual([]);
    });

    it('refuses forged, stale and widget-signed mini app data', async () => {
      const pairs = (date: number): Array<[string, string]> => [
        ['auth_date', String(date)],
        ['user', '{"id":5550004,"first_name":"B"}'],
      ];
      const good = signInitData(pairs(now()), BOT_TOKEN);
      expect((await post('/api/web_app', { init_data: good.replace('5550004', '5550005') })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: signInitData(pairs(now() - 86_401), BOT_TOKEN) })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: signInitData(pairs(now()), '1:other') })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: 'garbage' })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: '' })).statusCode).toBe(422);
      // The Login Widget's key does not sign mini app data.
      const widgetSigned = signWidget({ auth_date: now(), user: '{"id":5550004,"first_name":"B"}' }, BOT_TOKEN);
      expect((await post('/api/web_app', { init_data: new URLSearchParams(widgetSigned as Record<string, string>).toString() })).statusCode).toBe(401);
      expect((await post('/api/web_app', { init_data: good })).statusCode).toBe(200);
    });

    it('refuses a blocked Telegram player and answers 404 when Telegram is not configured', async () => {
      // The second sign-in must differ from the first (each signs in once), whatever second the clock turns to.
      const at = now();
      const widget = signWidget({ id: 5550006, first_name: 'C', auth_date: at }, BOT_TOKEN);
      const first = await post('/api/telegram_auth', widget);
      await db.kysely.updateTable('users').set({ blocked_at: new Date() }).where('id', '=', first.json().user.id).execute();
      const again = signWidget({ id: 5550006, first_name: 'C', auth_date: at - 1 }, BOT_TOKEN);
      expect((await post('/api/telegram_auth', again)).statusCode).toBe(403);
      const off = await post('/api/web_app', { init_data: 'auth_date=1&hash=00' }, { app: bare });
      expect(off.statusCode).toBe(404);
      expect(off.json().message).toBe('Вход через Telegram не настроен');
    });
  });
});
