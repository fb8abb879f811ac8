import * as contract from '@adena/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../test/factories';
import { createTestApp, DB_KINDS, type TestApp } from '../test/harness';

interface AnyCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  response: unknown;
}
const isCall = (v: unknown): v is AnyCall =>
  typeof v === 'object' && v !== null && typeof (v as AnyCall).path === 'string' && (v as AnyCall).path.startsWith('/api/') && 'response' in v && 'method' in v;

/** Every call of the contract (each exported call definition), once per method and path. */
const CALLS = [...new Map((Object.values(contract) as unknown[]).filter(isCall).map((c) => [`${c.method} ${c.path}`, c])).values()];

/** Text an attacker would try: control and format characters, huge and odd numbers, SQL and paths. */
const NASTY = ['\u0000', 'a\u202Eb', '\u200B', '\u0007', "' OR 1=1 --", '../../etc/passwd', '%00', '9'.repeat(40), '-1', '1e309', 'NaN', '🙂'.repeat(50), '', '\uD800'];
const nasty = fc.oneof(
  fc.string(),
  fc.constantFrom(...NASTY),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 2 ** 31, true, false, null),
  fc.array(nasty, { maxLength: 3 }),
  fc.dictionary(nasty, nasty, { maxKeys: 3 }),
);
const FIELDS = ['email', 'phone', 'password', 'password_confirmation', 'name', 'code', 'amount', 'gamesserver_id', 'id', 'nick', 'sert', 'comment', 'reason', 'note', 'state', 'redirect_uri', 'init_data', 'months', 'q', 'page', 'per_page', 'email_token'];
let seq = 0;
/** A body every call could accept, so the nasty field gets past the others' checks. */
const plausible = (): Record<string, unknown> => ({
  email: `fuzz${++seq}@example.com`,
  phone: `+7900${String(seq).padStart(7, '0')}`,
  password: 'correct horse 1',
  password_confirmation: 'correct horse 1',
  name: 'Игрок',
  code: '123456',
  amount: 3_000_000,
  gamesserver_id: 1,
  id: 1,
  nick: 'Hero',
  sert: 'ADN-AAAA-BBBB-CCCC-DDDD',
  comment: 'ок',
  reason: 'проверка',
  note: 'заметка',
  months: 1,
});
/** The plausible body with one to three fields replaced by anything; sometimes anything at all. */
const body = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), value, { minKeys: 1, maxKeys: 3 }).map((bad) => ({ ...plausible(), ...bad })) },
  { weight: 1, arbitrary: value },
);
const segment = fc.oneof(nasty.map((v) => encodeURIComponent(wellFormed(v))), fc.integer().map(String), fc.constant('1'));
const query = fc.dictionary(fc.constantFrom(...FIELDS), nasty, { maxKeys: 3 });

/** Lone surrogates replaced, as encodeURIComponent refuses them (String#toWellFormed is ES2024). */
const wellFormed = (v: string) => v.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

let ipSeq = 0;
const nextIp = () => `172.16.${Math.floor(++ipSeq / 250) % 250}.${ipSeq % 250}`;

describe.each(DB_KINDS)('fuzzing every call of the contract on %s', (kind) => {
  let t: TestApp;
  let tokens: Array<string | null>;
  beforeAll(async () => {
    t = await createTestApp(kind, { env: { RATE_LIMIT_SCALE: '1000' } });
    const player = await createUser(t.db.kysely);
    const admin = await createUser(t.db.kysely, { admin: true });
    tokens = [null, player.token, admin.token, 'not-a-real-token'];
  });
  afterAll(async () => t.close());

  it('answers no 5xx when every text field, query value and path segment holds a nasty value', async () => {
    const TEXT = ['name', 'comment', 'reason', 'note', 'nick', 'sert', 'q', 'state', 'code', 'redirect_uri', 'init_data', 'email_token'];
    const failures: string[] = [];
    for (const call of CALLS) {
      for (const token of tokens.slice(0, 3)) {
        for (const bad of NASTY) {
          const payload = { ...plausible(), ...Object.fromEntries(TEXT.map((f) => [f, bad])) };
          const q = new URLSearchParams(Object.fromEntries(FIELDS.map((f) => [f, bad]))).toString();
          const url = `${call.path.replace(/:[a-z_]+/g, encodeURIComponent(wellFormed(bad)))}?${q}`;
          const res = await t.app.inject({
            method: call.method,
            url,
            remoteAddress: nextIp(),
            headers: token ? { authorization: `Bearer ${token}` } : {},
            ...(call.method === 'GET' ? {} : { payload }),
          });
          if (res.statusCode >= 500) failures.push(`${call.method} ${call.path} ${JSON.stringify(bad)} → ${res.statusCode}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it(`answers no 5xx to anything, with and without a token (${CALLS.length} calls)`, async () => {
    expect(CALLS.length).toBeGreaterThan(40);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CALLS),
        fc.constantFrom(0, 1, 2, 3),
        segment,
        query,
        body,
        async (call, who, seg, q, payload) => {
          const url = `${call.path.replace(/:[a-z_]+/g, seg)}?${new URLSearchParams(q as Record<string, string>).toString()}`;
          const token = tokens[who];
          const res = await t.app.inject({
            method: call.method,
            url,
            remoteAddress: nextIp(),
            headers: token ? { authorization: `Bearer ${token}` } : {},
            ...(call.method === 'GET' ? {} : { payload: payload as object }),
          });
          if (res.statusCode >= 500) throw new Error(`${call.method} ${url} ${JSON.stringify(payload)} → ${res.statusCode} ${res.body}`);
        },
      ),
      { numRuns: kind === 'pglite' ? 600 : 300 },
    );
  }, 600_000);
});
