import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { type ZodType, z } from 'zod';

type Json = { [key: string]: unknown };
type Serializer = (data: unknown) => string;

/**
 * Answers are written by fast-json-stringify from each route's zod response schema turned into JSON
 * Schema once, at start (decision record 0027, second pass): only the schema's properties reach the
 * wire, in the schema's order, as zod's encode would give, at a fraction of its cost per answer.
 * A schema JSON Schema cannot express keeps zod's serializer.
 *
 * With `check` (tests and development), every answer is also encoded by zod and the two texts must
 * be equal: the whole test suite is then a differential test of this serializer against zod's.
 */
export function createSerializerCompiler({ check }: { check: boolean }): FastifySerializerCompiler<ZodType> {
  const viaZod = zodSerializerCompiler as unknown as (route: { schema: unknown; method: string; url: string }) => Serializer;
  return (route) => {
    const zodSerializer = viaZod(route);
    const fast = fastSerializer(route.schema);
    if (!fast) return zodSerializer;
    if (!check) return fast;
    return (data: unknown) => {
      const expected = zodSerializer(data);
      const got = fast(data);
      if (got !== expected) throw new Error(`serializer mismatch on ${route.method} ${route.url}: ${got} ≠ ${expected}`);
      return got;
    };
  };
}

export function fastSerializer(schema: unknown): Serializer | null {
  if (!(schema instanceof z.ZodType)) return null;
  try {
    const json = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'throw' }) as Json;
    delete json.$schema;
    return fastJson(simplify(json) as Parameters<typeof fastJson>[0]) as Serializer;
  } catch {
    return null;
  }
}

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * Unions fast-json-stringify would settle by validating every answer with Ajv, rewritten where the
 * answer's shape is known without it: a union of literals of one type is that type, and "X or null"
 * is X, nullable.
 */
function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = simplify(v);
  const anyOf = out.anyOf as Json[] | undefined;
  if (!Array.isArray(anyOf) || Object.keys(out).length !== 1) return out;
  const type = anyOf[0]?.type;
  if (typeof type === 'string' && PRIMITIVE.has(type) && anyOf.every((b) => b.type === type && 'const' in b && Object.keys(b).length === 2)) {
    return { type, enum: anyOf.map((b) => b.const) };
  }
  const nonNull = anyOf.filter((b) => !(b.type === 'null' && Object.keys(b).length === 1));
  if (anyOf.length === 2 && nonNull.length === 1 && nonNull[0] && !('anyOf' in nonNull[0]) && typeof nonNull[0].type === 'string') {
    return { ...nonNull[0], nullable: true };
  }
  return out;
}
