import type { CompiledQuery } from 'kysely';

/**
 * A statement over some keys compiled once per handle and form (one key, several), not on every call:
 * building and compiling the wallets' per batch cost the server about 4 % of its CPU under load
 * (decision record 0026). Sound only for a statement whose text depends on the keys' count alone and
 * which takes the keys as its leading parameters (`leading` gives them from the keys): a call swaps
 * those and keeps the rest, the statement's constants. Each form is compiled from `[sample]` or
 * `[sample, sample]`, so it is the form a call's count picks; its leading parameters are checked
 * against `leading` then, so a statement taking the keys elsewhere fails on its first call rather
 * than running with its parameters mixed up. Per handle because the text is its dialect's and
 * plugins'; in a WeakMap so a handle that goes takes its texts along.
 *
 * `statement` returns a query builder (bound to its handle when built) or a raw `sql` template
 * (given it when compiled): either way it is compiled with the handle.
 */
export function compiledForms<H extends object, K, R>(form: {
  statement: (db: H, keys: readonly K[]) => { compile(db: H): CompiledQuery<R> };
  sample: K;
  leading: (keys: readonly K[]) => readonly unknown[];
}): (db: H, keys: readonly K[]) => CompiledQuery<R> {
  const handles = new WeakMap<H, { one: CompiledQuery<R>; many: CompiledQuery<R> }>();
  const compileAs = (db: H, keys: readonly K[]) => {
    const compiled = form.statement(db, keys).compile(db);
    const expected = form.leading(keys);
    if (!expected.every((p, i) => Object.is(compiled.parameters[i], p))) {
      throw new Error("compiledForms: the keys are not the statement's leading parameters");
    }
    return compiled;
  };
  return (db, keys) => {
    let forms = handles.get(db);
    if (!forms) {
      forms = { one: compileAs(db, [form.sample]), many: compileAs(db, [form.sample, form.sample]) };
      handles.set(db, forms);
    }
    const base = keys.length === 1 ? forms.one : forms.many;
    const leading = form.leading(keys);
    return { query: base.query, queryId: base.queryId, sql: base.sql, parameters: [...leading, ...base.parameters.slice(leading.length)] };
  };
}
