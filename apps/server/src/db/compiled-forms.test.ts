import { DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledForms } from './compiled-forms';

interface Db {
  t: { a: number; b: string };
}

// Compiling needs no connection: a dialect whose driver never connects.
const postgres = () =>
  new Kysely<Db>({
    dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() },
  });
const mysql = () =>
  new Kysely<Db>({
    dialect: { createAdapter: () => new MysqlAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new MysqlIntrospector(db), createQueryCompiler: () => new MysqlQueryCompiler() },
  });

/** The keys as the statements below take them: one id, or several as one array literal. */
const leading = (ids: readonly number[]) => [ids.length === 1 ? ids[0]! : `{${ids.join(',')}}`];
/** A query builder with the keys first and two constants after them. */
const builder = (db: Kysely<Db>, ids: readonly number[]) =>
  db
    .selectFrom('t')
    .select('b')
    .where(ids.length === 1 ? sql<boolean>`a = ${leading(ids)[0]}` : sql<boolean>`a = ANY(${leading(ids)[0]}::int[])`)
    .where('b', '=', 'x')
    .limit(5);

describe('compiledForms', () => {
  it('swaps a form\'s leading parameters and keeps the rest, as a fresh compile has them', () => {
    const db = postgres();
    const compiled = compiledForms({ statement: builder, sample: 0, leading });
    for (const ids of [[7], [7, 8, 9], [3], [4, 4]]) {
      const fresh = builder(db, ids).compile();
      expect({ sql: compiled(db, ids).sql, parameters: compiled(db, ids).parameters }).toEqual({ sql: fresh.sql, parameters: fresh.parameters });
    }
    expect(compiled(db, [1, 2]).parameters).toEqual(['{1,2}', 'x', 5]);
  });

  it('takes a raw sql template, compiled with the handle', () => {
    const db = postgres();
    const raw = (_db: Kysely<Db>, ids: readonly number[]) => sql<{ b: string }>`SELECT b FROM t WHERE a = ANY(${leading(ids)[0]}::int[]) LIMIT ${10}`;
    const compiled = compiledForms({ statement: raw, sample: 0, leading });
    expect(compiled(db, [2, 3]).parameters).toEqual(['{2,3}', 10]);
    expect(compiled(db, [2, 3]).sql).toBe(raw(db, [2, 3]).compile(db).sql);
  });

  it('compiles each form once per handle, each handle its own text', () => {
    let built = 0;
    const counted = (db: Kysely<Db>, ids: readonly number[]) => {
      built++;
      return builder(db, ids);
    };
    const compiled = compiledForms({ statement: counted, sample: 0, leading });
    const pg = postgres();
    const my = mysql();
    compiled(pg, [1]);
    compiled(pg, [1, 2]);
    compiled(pg, [3]);
    expect(built).toBe(2);
    const other = compiled(my, [1, 2]);
    expect(built).toBe(4);
    expect(other.sql).toBe(builder(my, [1, 2]).compile().sql);
    expect(compiled(pg, [1, 2]).sql).not.toBe(other.sql);
    expect(built).toBe(4);
  });

  it('refuses a statement whose keys are not its leading parameters', () => {
    const late = (db: Kysely<Db>, ids: readonly number[]) => db.selectFrom('t').select('b').where('b', '=', 'x').where(sql<boolean>`a = ${leading(ids)[0]}`);
    const compiled = compiledForms({ statement: late, sample: 0, leading });
    expect(() => compiled(postgres(), [1])).toThrow(/leading parameters/);
  });
});
