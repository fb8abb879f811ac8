import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../test/factories';
import { createTestApp, type TestApp } from '../../test/harness';

// Every call PRODUCT.md names (sections 3, 3's admin list, 9 and 10; /api/ready is not built on this branch yet), as "METHOD path" with {id} parameters.
const PRODUCT_CALLS = [
  'POST /api/email_register',
  'POST /api/new_token_email_register',
  'POST /api/code_verification_email_register',
  'POST /api/phone_register',
  'POST /api/new_token_phone_register',
  'POST /api/code_verification_phone_register',
  'POST /api/login',
  'POST /api/phone_login',
  'POST /api/email_reset_password_code_date',
  'POST /api/email_reset_password_code_check',
  'POST /api/email_create_new_password',
  'POST /api/phone_reset_password',
  'POST /api/phone_reset_password_code_check',
  'POST /api/phone_create_new_password',
  'POST /api/discord_auth',
  'POST /api/telegram_auth',
  'POST /api/web_app',
  'GET /api/user',
  'GET /api/logout',
  'GET /api/auth_config',
  'GET /api/gamesservers',
  'GET /api/wallets',
  'GET /api/get_user_input_output_balance',
  'POST /api/up_balance_user/',
  'POST /api/up_balance_user_second_currency/',
  'POST /api/down_balance_user/',
  'POST /api/down_balance_user_second_currency/',
  'GET /api/delete_balance_user/{id}',
  'POST /api/delete_request/',
  'GET /api/varianty_adeny_za_kod/{id}',
  'GET /api/auth_varianty_adeny_za_kod/{id}',
  'POST /api/show_code/',
  'POST /api/activation_code/',
  'POST /api/save_nick/',
  'POST /api/add_limit_otvetka/',
  'POST /api/del_limit_otvetka/',
  'POST /api/pricekods/',
  'PUT /api/pricekods/{id}',
  'DELETE /api/pricekods/{id}',
  'POST /api/code_incidents/{id}/ack',
  'POST /api/vip/',
  'GET /api/get_error_user_code',
  'POST /api/ably-token',
  'GET /api/testAbly',
  'GET /api/admin/requests',
  'POST /api/admin/requests/{id}/complete',
  'POST /api/admin/requests/{id}/reject',
  'GET /api/health',
  'POST /api/api_keys',
  'GET /api/api_keys',
  'DELETE /api/api_keys/{id}',
  'GET /api/v1/balance',
  'POST /api/v1/codes',
  'GET /api/v1/codes',
  'GET /api/v1/codes/{id}',
  'DELETE /api/v1/codes/{id}',
  'PUT /api/webhook',
  'GET /api/webhook',
  'DELETE /api/webhook',
  'POST /api/webhook/rotate',
  'POST /api/webhook/test',
  'GET /api/webhook/deliveries',
];

type Doc = { openapi: string; paths: Record<string, Record<string, { summary?: string; description?: string; security?: unknown[] }>> };

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  beforeAll(async () => {
    t = await createTestApp('pglite');
    const res = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json() as Doc;
  });
  afterAll(async () => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
  });

  it('lists every call of PRODUCT.md, each with a Russian summary', () => {
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const missing = PRODUCT_CALLS.filter((c) => !listed.includes(c));
    expect(missing).toEqual([]);
    const unnamed = PRODUCT_CALLS.filter((c) => {
      const [m, p] = c.split(' ') as [string, string];
      return !/[А-Яа-яЁё]/.test(doc.paths[p]?.[m.toLowerCase()]?.summary ?? '');
    });
    expect(unnamed).toEqual([]);
  });

  it('describes the v1 calls with the API key scheme and their bodies from the contract', () => {
    expect(doc.paths['/api/v1/codes']!.post!.security).toEqual([{ apiKey: [] }]);
    expect(JSON.stringify(doc.paths['/api/v1/codes']!.post)).toContain('external_id');
    expect(doc.paths['/api/v1/codes']!.post!.description).toMatch(/Idempotency-Key/);
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))).toEqual([]);
  });

  it('declares the v1 Idempotency-Key header (required on the issue, optional on the cancel) as long as the server takes it, and the refusals', async () => {
    type Param = { in: string; name: string; required?: boolean; schema: { type: string; minLength?: number; maxLength?: number } };
    type Op = { parameters?: Param[]; responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }>; headers?: Record<string, unknown> }> };
    const op = (path: string, method: string) => (doc.paths as unknown as Record<string, Record<string, Op>>)[path]![method]!;
    const keyHeader = (o: Op) => o.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    const issue = op('/api/v1/codes', 'post');
    const cancel = op('/api/v1/codes/{id}', 'delete');
    expect(keyHeader(issue)).toMatchObject({ required: true, schema: { type: 'string', minLength: 1 } });
    expect(keyHeader(cancel)).toMatchObject({ schema: { type: 'string', minLength: 1 } });
    expect(keyHeader(cancel)!.required ?? false).toBe(false);
    const max = keyHeader(issue)!.schema.maxLength!;
    expect(keyHeader(cancel)!.schema.maxLength).toBe(max);
    // The length the document states is the one the server enforces.
    const u = await createUser(t.db.kysely);
    const key = (await t.app.inject({ method: 'POST', url: '/api/api_keys', headers: u.auth, payload: { name: 'docs' } })).json().key as string;
    const cancelWith = (idem: string) =>
      t.app.inject({ method: 'DELETE', url: '/api/v1/codes/2147483647', headers: { authorization: `Bearer ${key}`, 'idempotency-key': idem } });
    expect((await cancelWith('k'.repeat(max))).statusCode).toBe(404);
    const tooLong = await cancelWith('k'.repeat(max + 1));
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().errors['Idempotency-Key']).toBeDefined();

    const refusals: [string, string, string[]][] = [
      ['/api/v1/balance', 'get', ['401', '404', '422', '429']],
      ['/api/v1/codes', 'post', ['401', '404', '409', '422', '429']],
      ['/api/v1/codes', 'get', ['401', '422', '429']],
      ['/api/v1/codes/{id}', 'get', ['401', '404', '422', '429']],
      ['/api/v1/codes/{id}', 'delete', ['401', '404', '409', '422', '429']],
    ];
    for (const [path, method, codes] of refusals) {
      const responses = op(path, method).responses;
      expect(Object.keys(responses).sort(), `${method} ${path}`).toEqual(['200', ...codes]);
      for (const code of codes) {
        expect(Object.keys(responses[code]!.content!['application/json']!.schema.properties!), `${method} ${path} ${code}`).toEqual(['message', 'errors']);
      }
      expect(responses['429']!.headers).toHaveProperty('Retry-After');
    }
    // The list's cursor is a documented query parameter.
    expect(op('/api/v1/codes', 'get').parameters!.find((p) => p.in === 'query' && p.name === 'older_than')).toMatchObject({ required: false });
  });

  it('says what creating an API key asks for: the code with TOTP on, else the current password in its body', () => {
    const create = doc.paths['/api/api_keys']!.post!;
    expect(create.description).toMatch(/X-Two-Factor-Code/);
    expect(create.description).toMatch(/`password`/);
    expect(JSON.stringify(create)).toContain('"password"');
  });

  it('says what setting the webhook and rotating its secret ask for: the code with TOTP on, else the current password in the body', () => {
    for (const call of [doc.paths['/api/webhook']!.put!, doc.paths['/api/webhook/rotate']!.post!]) {
      expect(call.description).toMatch(/X-Two-Factor-Code/);
      expect(call.description).toMatch(/`password`/);
      expect(JSON.stringify(call)).toContain('"password"');
    }
  });

  it('serves a readable reference at /api/docs from this origin', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/);
    const js = res.body.match(/src="([^"]+\.js)"/)?.[1];
    expect(js).toBeDefined();
    const asset = await t.app.inject({ method: 'GET', url: new URL(js!, 'http://x/api/docs/').pathname });
    expect(asset.statusCode).toBe(200);
  });
});
