import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce';

/** A load whose batches the test answers by hand. */
function manualLoad() {
  const batches: Array<{ keys: number[]; answer: (m: Map<number, string>) => void; fail: (e: Error) => void }> = [];
  const load = (keys: number[]) =>
    new Promise<Map<number, string>>((answer, fail) => {
      batches.push({ keys, answer, fail });
    });
  return { batches, load };
}
const settle = () => new Promise((r) => setImmediate(r));

describe('coalesce', () => {
  it('runs a lone call at once', async () => {
    const { batches, load } = manualLoad();
    const get = coalesce(load);
    const p = get(1);
    await settle();
    expect(batches.map((b) => b.keys)).toEqual([[1]]);
    batches[0]!.answer(new Map([[1, 'one']]));
    expect(await p).toBe('one');
  });

  it('never answers a call from a statement that started before it; calls waiting meanwhile share the next one', async () => {
    const { batches, load } = manualLoad();
    const get = coalesce(load, { maxInFlight: 1 });
    const early = get(1);
    await settle();
    // Made while the first statement runs: must wait for a statement of its own.
    const late = [get(1), get(2), get(1)];
    await settle();
    expect(batches.map((b) => b.keys)).toEqual([[1]]);
    batches[0]!.answer(new Map([[1, 'before']]));
    expect(await early).toBe('before');
    await settle();
    expect(batches.map((b) => b.keys)).toEqual([[1], [1, 2]]);
    batches[1]!.answer(new Map([[1, 'after']]));
    expect(await Promise.all(late)).toEqual(['after', undefined, 'after']);
  });

  it('keeps at most maxInFlight statements running and maxBatch keys in one', async () => {
    const { batches, load } = manualLoad();
    const get = coalesce(load, { maxInFlight: 2, maxBatch: 2 });
    const all = [1, 2, 3, 4, 5, 6].map((k) => get(k));
    await settle();
    expect(batches.map((b) => b.keys)).toEqual([[1], [2]]);
    batches[0]!.answer(new Map());
    await settle();
    expect(batches.map((b) => b.keys)).toEqual([[1], [2], [3, 4]]);
    batches[1]!.answer(new Map());
    batches[2]!.answer(new Map([[3, 'c']]));
    await settle();
    expect(batches.at(-1)!.keys).toEqual([5, 6]);
    batches.at(-1)!.answer(new Map([[6, 'f']]));
    expect(await Promise.all(all)).toEqual([undefined, undefined, 'c', undefined, undefined, 'f']);
  });

  it('fails every call of a failed statement and goes on with the next', async () => {
    const { batches, load } = manualLoad();
    const get = coalesce(load, { maxInFlight: 1 });
    const first = get(1);
    await settle();
    const second = [get(2), get(3)];
    await settle();
    batches[0]!.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await settle();
    batches[1]!.fail(new Error('still down'));
    await expect(Promise.all(second)).rejects.toThrow('still down');
    const third = get(4);
    await settle();
    batches[2]!.answer(new Map([[4, 'back']]));
    expect(await third).toBe('back');
  });
});
