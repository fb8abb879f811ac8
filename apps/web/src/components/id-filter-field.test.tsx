// @vitest-environment happy-dom
import { act, createElement, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, type } from '../test/dom';
import { IdFilterField } from './id-filter-field';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('a filter by a record’s number', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('keeps what was typed, filters only by a number the server takes, and says what is wrong under the field', async () => {
    const filters: Array<number | undefined> = [];
    let reset = () => {};
    function Host() {
      const [id, setId] = useState<number | undefined>(undefined);
      reset = () => setId(undefined);
      return createElement(IdFilterField, {
        label: 'id владельца кода',
        value: id,
        onChange: (next: number | undefined) => {
          filters.push(next);
          setId(next);
        },
        width: 200,
      });
    }
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(Host)));
    const input = () => document.querySelector('input') as HTMLInputElement;
    const helper = () => document.querySelector('.MuiFormHelperText-root')?.textContent ?? null;

    await act(async () => type(input(), '12'));
    expect(filters).toEqual([12]);
    // A stray letter: the field keeps it and says so; the list stays filtered by 12.
    await act(async () => type(input(), '12з'));
    expect(input().value).toBe('12з');
    expect(helper()).toBe('id — целое число от 1');
    expect(input().getAttribute('aria-invalid')).toBe('true');
    expect(filters).toEqual([12]);
    // 0 and a number past what the server takes are not sent either.
    await act(async () => type(input(), '0'));
    await act(async () => type(input(), '3000000000'));
    expect(filters).toEqual([12]);
    await act(async () => type(input(), '15'));
    expect(helper()).toBeNull();
    await act(async () => type(input(), ''));
    expect(filters).toEqual([12, 15, undefined]);
    // A filter reset from outside («Сбросить») empties the field.
    await act(async () => type(input(), '7'));
    await act(async () => reset());
    expect(input().value).toBe('');
  });
});
