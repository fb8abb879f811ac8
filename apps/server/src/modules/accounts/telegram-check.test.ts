import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { botIdOf, checkInitData, checkLoginWidget, webAppSecret } from './telegram-check';
import * as sign from '../../../test/fakes/telegram';

// Published vectors. Telegram's own documentation publishes none; these come from the tma.js
// libraries (Telegram-Mini-Apps/telegram-apps packages/init-data-node validate tests, and
// Telegram-Mini-Apps/init-data-golang validate_test.go) and one taken from a real mini app
// launch (an-ivannikov/validating-data-received-via-the-telegram-mini-app).
const TMA_TOKEN = '5768337691:AAH5YkoiEuPk8-FZa32hStHTqXiLPtAEhx8';
// Note `chat`'s photo_url is "group" in the raw text: anything re-serialised from parsed
// values would differ, and only the raw text verifies.
const TMA_NODE_INIT_DATA =
  'auth_date=1&can_send_after=10000&chat=%7B%22id%22%3A1%2C%22type%22%3A%22group%22%2C%22title%22%3A%22chat-title%22%2C%22photo_url%22%3A%22group%22%2C%22username%22%3A%22my-chat%22%7D&chat_instance=888&chat_type=sender&hash=47cfa22e72b887cba90c9cb833c5ea0f599975b6ce7193741844b5c4a4228b40&query_id=QUERY&receiver=%7B%22added_to_attachment_menu%22%3Afalse%2C%22allows_write_to_pm%22%3Atrue%2C%22first_name%22%3A%22receiver-first-name%22%2C%22id%22%3A991%2C%22is_bot%22%3Afalse%2C%22is_premium%22%3Atrue%2C%22language_code%22%3A%22ru%22%2C%22last_name%22%3A%22receiver-last-name%22%2C%22photo_url%22%3A%22receiver-photo%22%2C%22username%22%3A%22receiver-username%22%7D&start_param=debug&user=%7B%22added_to_attachment_menu%22%3Afalse%2C%22allows_write_to_pm%22%3Afalse%2C%22first_name%22%3A%22user-first-name%22%2C%22id%22%3A222%2C%22is_bot%22%3Atrue%2C%22is_premium%22%3Afalse%2C%22language_code%22%3A%22en%22%2C%22last_name%22%3A%22user-last-name%22%2C%22photo_url%22%3A%22user-photo%22%2C%22username%22%3A%22user-username%22%7D';
const TMA_GO_INIT_DATA =
  'query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%7D&auth_date=1662771648&hash=c501b71e775f74ce10e377dea85a7ea24ecd640b223ea86dfe453e0eaed2e2b2';
const LIVE_TOKEN = '6887590696:AAEf6UL8lV5qhveK_dFNEOtjLTosCrErM8Q';
const LIVE_INIT_DATA =
  'user=%7B%22id%22%3A308131758%2C%22first_name%22%3A%22ALEX%22%2C%22last_name%22%3A%22IVANNIKOV.PRO%22%2C%22username%22%3A%22ivannikovPro%22%2C%22language_code%22%3A%22ru%22%2C%22allows_write_to_pm%22%3Atrue%7D&chat_instance=-1857114464680496286&chat_type=private&auth_date=1716232213&hash=7d31991a605ab5e265b40ebbccc09c28bfb59366d2ac5cee9ca288c24a2ed3c3';

const at = (unixSeconds: number) => new Date(unixSeconds * 1000);
const BOT = '123456789:AAtest-bot-token_for-unit-tests';

const signWidget = (fields: Record<string, string | number>, token = BOT) => sign.signWidget(fields, token);
const signInit = (pairs: Array<[string, string]>, token = BOT) => sign.signInitData(pairs, token);

describe('the mini app initData check', () => {
  it('accepts the tma.js Node vector at its own time, with the raw user JSON', () => {
    const r = checkInitData(TMA_NODE_INIT_DATA, TMA_TOKEN, at(1));
    expect(r).toMatchObject({
      ok: true,
      identity: { id: '222', firstName: 'user-first-name', lastName: 'user-last-name', username: 'user-username', authDate: 1 },
    });
  });

  it('accepts the tma.js Go vector and a real launch', () => {
    expect(checkInitData(TMA_GO_INIT_DATA, TMA_TOKEN, at(1662771648 + 60))).toMatchObject({ ok: true, identity: { id: '279058397' } });
    expect(checkInitData(LIVE_INIT_DATA, LIVE_TOKEN, at(1716232213))).toMatchObject({ ok: true, identity: { id: '308131758', username: 'ivannikovPro' } });
  });

  it('refuses the published vectors with another bot token', () => {
    expect(checkInitData(TMA_NODE_INIT_DATA, `${TMA_TOKEN}A`, at(1))).toEqual({ ok: false, reason: 'bad_hash' });
    expect(checkInitData(LIVE_INIT_DATA, TMA_TOKEN, at(1716232213))).toEqual({ ok: false, reason: 'bad_hash' });
  });

  it('refuses the published vectors a day and a second later', () => {
    expect(checkInitData(TMA_GO_INIT_DATA, TMA_TOKEN, at(1662771648 + 86_401))).toEqual({ ok: false, reason: 'stale' });
    // The tma.js vector is from 1970: stale today.
    expect(checkInitData(TMA_NODE_INIT_DATA, TMA_TOKEN)).toEqual({ ok: false, reason: 'stale' });
  });

  it('refuses a vector whose data was changed after signing', () => {
    expect(checkInitData(TMA_GO_INIT_DATA.replace('279058397', '279058398'), TMA_TOKEN, at(1662771648))).toEqual({ ok: false, reason: 'bad_hash' });
    expect(checkInitData(`${TMA_GO_INIT_DATA}abc`, TMA_TOKEN, at(1662771648))).toEqual({ ok: false, reason: 'bad_hash' });
  });

  it('keeps `signature` in the check string: data signed with it verifies, and without it does not', () => {
    const now = Math.floor(Date.now() / 1000);
    const pairs: Array<[string, string]> = [
      ['user', '{"id":7000000001,"first_name":"Анна","username":"anna","photo_url":"https:\\/\\/t.me\\/i\\/userpic\\/320\\/x.svg"}'],
      ['chat_instance', '-42'],
      ['auth_date', String(now)],
      ['signature', 'zL-ucjNyREiHDE8aihFwpfR9aggP2xiAo3NSpfe-p7IbCisNlDKlo7Kb6G4D0Ao2mBrSgEk4maLSdv6MLIlADQ'],
    ];
    const good = signInit(pairs);
    expect(checkInitData(good, BOT)).toMatchObject({ ok: true, identity: { id: '7000000001', firstName: 'Анна', username: 'anna', authDate: now } });
    // Signed as if `signature` were excluded (a common mistake): must not verify.
    const withoutSignature = signInit(pairs.filter(([k]) => k !== 'signature'));
    const hash = new URLSearchParams(withoutSignature).get('hash')!;
    const forged = new URLSearchParams(pairs);
    forged.append('hash', hash);
    expect(checkInitData(forged.toString(), BOT)).toEqual({ ok: false, reason: 'bad_hash' });
  });

  it('checks the user JSON as sent: escaped slashes and key order survive', () => {
    const now = Math.floor(Date.now() / 1000);
    const raw = '{"username":"z","id":5,"first_name":"\\u0410"}';
    const r = checkInitData(signInit([['auth_date', String(now)], ['user', raw]]), BOT);
    expect(r).toMatchObject({ ok: true, identity: { id: '5', firstName: 'А' } });
  });

  it('refuses data signed with the Login Widget key instead of the mini app key', () => {
    const now = Math.floor(Date.now() / 1000);
    const dcs = `auth_date=${now}\nuser={"id":1,"first_name":"A"}`;
    const hash = createHmac('sha256', createHash('sha256').update(BOT).digest()).update(dcs).digest('hex');
    const sp = new URLSearchParams({ auth_date: String(now), user: '{"id":1,"first_name":"A"}', hash });
    expect(checkInitData(sp.toString(), BOT)).toEqual({ ok: false, reason: 'bad_hash' });
  });

  it('refuses missing hash, repeated keys, a future date and a missing user', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(checkInitData('auth_date=1', BOT)).toEqual({ ok: false, reason: 'malformed' });
    const signed = signInit([['auth_date', String(now)], ['user', '{"id":1,"first_name":"A"}']]);
    expect(checkInitData(`${signed}&user=${encodeURIComponent('{"id":2}')}`, BOT)).toEqual({ ok: false, reason: 'malformed' });
    expect(checkInitData(signInit([['auth_date', String(now + 3600)], ['user', '{"id":1}']]), BOT)).toEqual({ ok: false, reason: 'stale' });
    expect(checkInitData(signInit([['auth_date', String(now)], ['chat_instance', '1']]), BOT)).toEqual({ ok: false, reason: 'malformed' });
    expect(checkInitData(`${signed.replace(/hash=[0-9a-f]+/, 'hash=zz')}`, BOT)).toEqual({ ok: false, reason: 'bad_hash' });
  });
});

describe('the Login Widget check', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('accepts fields signed with SHA-256 of the bot token, numbers or strings alike', () => {
    const fields = signWidget({ id: 99887766, first_name: 'Иван', username: 'ivan', auth_date: now() });
    expect(checkLoginWidget(fields, BOT)).toMatchObject({ ok: true, identity: { id: '99887766', firstName: 'Иван', username: 'ivan' } });
    const asStrings = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
    expect(checkLoginWidget(asStrings, BOT).ok).toBe(true);
  });

  it('signs every received field, including ones we do not use', () => {
    const fields = signWidget({ id: 1, first_name: 'A', auth_date: now(), photo_url: 'https://t.me/i/userpic/1.jpg' });
    expect(checkLoginWidget(fields, BOT).ok).toBe(true);
    const { photo_url: _, ...dropped } = fields;
    expect(checkLoginWidget(dropped, BOT)).toEqual({ ok: false, reason: 'bad_hash' });
  });

  it('refuses a forged field, another bot, the mini app key and a hash of the wrong shape', () => {
    const fields = signWidget({ id: 1, first_name: 'A', auth_date: now() });
    expect(checkLoginWidget({ ...fields, id: 2 }, BOT)).toEqual({ ok: false, reason: 'bad_hash' });
    expect(checkLoginWidget(fields, `${BOT}x`)).toEqual({ ok: false, reason: 'bad_hash' });
    const dcs = `auth_date=${fields.auth_date}\nfirst_name=A\nid=1`;
    const miniAppHash = createHmac('sha256', webAppSecret(BOT)).update(dcs).digest('hex');
    expect(checkLoginWidget({ ...fields, hash: miniAppHash }, BOT)).toEqual({ ok: false, reason: 'bad_hash' });
    expect(checkLoginWidget({ ...fields, hash: 'abc' }, BOT)).toEqual({ ok: false, reason: 'bad_hash' });
  });

  it('refuses a signed id too long for the database', () => {
    expect(checkLoginWidget(signWidget({ id: '99999999999999999999', first_name: 'A', auth_date: now() }), BOT)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses a login older than the maximum age (an hour unless set), and accepts one just inside it', () => {
    expect(checkLoginWidget(signWidget({ id: 1, first_name: 'A', auth_date: now() - 3601 }), BOT)).toEqual({ ok: false, reason: 'stale' });
    expect(checkLoginWidget(signWidget({ id: 1, first_name: 'A', auth_date: now() - 3500 }), BOT).ok).toBe(true);
    expect(checkLoginWidget(signWidget({ id: 1, first_name: 'A', auth_date: now() - 7000 }), BOT, new Date(), 7200).ok).toBe(true);
  });
});

describe('the bot id', () => {
  it('is the number before the colon of the token', () => {
    expect(botIdOf(TMA_TOKEN)).toBe(5768337691);
    expect(botIdOf('not-a-token')).toBeNull();
  });
});
