import * as contract from '@adena/contract';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSerializerCompiler, fastSerializer } from './serializer';

const compile = (schema: z.ZodType, check = false) => createSerializerCompiler({ check })({ schema, method: 'GET', url: '/api/x', httpStatus: '200' });

describe('the answers serializer', () => {
  it('writes only the schema’s properties: a field the route forgot to drop never reaches the wire', () => {
    const user = z.object({ id: z.number().int(), name: z.string(), email: z.string().nullable() });
    const text = compile(user)({ id: 7, name: 'Вася "Топор"', email: null, password_hash: '$argon2id$secret' });
    expect(JSON.parse(text)).toEqual({ id: 7, name: 'Вася "Топор"', email: null });
    expect(text).not.toContain('argon2');
  });

  it('writes literal unions and nullable objects as zod does', () => {
    const schema = z.object({
      currency_type: z.union([z.literal(1), z.literal(2)]),
      status: z.enum(['pending', 'completed']),
      owner: z.object({ id: z.number(), nick: z.string() }).nullable(),
      note: z.string().optional(),
    });
    const check = compile(schema, true);
    expect(check({ currency_type: 2, status: 'completed', owner: null })).toBe('{"currency_type":2,"status":"completed","owner":null}');
    expect(check({ currency_type: 1, status: 'pending', owner: { id: 3, nick: 'Ник' }, note: 'a\nb' })).toBe(
      '{"currency_type":1,"status":"pending","owner":{"id":3,"nick":"Ник"},"note":"a\\nb"}',
    );
  });

  it('with the check on, refuses an answer zod would refuse instead of sending it', () => {
    const schema = z.object({ amount: z.string() });
    expect(() => compile(schema, true)({ amount: 5 })).toThrow();
  });

  it('compiles every response schema of the contract to fast-json-stringify (none falls back to zod)', () => {
    const schemas = Object.values(contract).flatMap((call) =>
      typeof call === 'object' && call !== null && 'response' in call && call.response instanceof z.ZodType ? [call.response] : [],
    );
    expect(schemas.length).toBeGreaterThan(50);
    for (const schema of schemas) expect(fastSerializer(schema)).toBeTypeOf('function');
  });
});
