// @vitest-environment happy-dom
import { act, createElement, type ReactElement, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, settle } from '../test/dom';
import { type FocusSpot, useFocusAfterRemoval } from './use-focus-after-removal';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Rows 1…n, each with «Убрать N» unless listed in `bare`; a «Поиск» field beside the list. */
function Rows({ spots, bare = [] }: { spots: Map<number, FocusSpot>; bare?: number[] }): ReactElement {
  const [rows, setRows] = useState([1, 2, 3, 4]);
  const [disabled, setDisabled] = useState<number[]>([]);
  const focusFrom = useFocusAfterRemoval('test');
  (globalThis as { removeRow?: (n: number) => void }).removeRow = (n) => setRows((r) => r.filter((x) => x !== n));
  (globalThis as { disableRow?: (n: number) => void }).disableRow = (n) => setDisabled((d) => [...d, n]);
  return createElement(
    'div',
    null,
    createElement('input', { 'aria-label': 'Поиск' }),
    createElement(
      'ul',
      { 'data-focus-list': 'test', tabIndex: -1 },
      rows.map((n) =>
        createElement(
          'li',
          { key: n, 'data-focus-row': 'test', 'data-focus-key': n },
          `Строка ${n}`,
          !bare.includes(n) &&
            createElement('button', { type: 'button', disabled: disabled.includes(n), 'data-focus-action': 'remove', onClick: () => spots.set(n, focusFrom(n, 'remove')) }, `Убрать ${n}`),
        ),
      ),
    ),
  );
}

describe('useFocusAfterRemoval', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  async function mount(bare: number[] = []) {
    const spots = new Map<number, FocusSpot>();
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(Rows, { spots, bare })));
    const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === text)!;
    const start = async (n: number) =>
      act(async () => {
        button(`Убрать ${n}`).focus();
        button(`Убрать ${n}`).click();
      });
    const remove = async (n: number) => {
      await act(async () => (globalThis as { removeRow?: (n: number) => void }).removeRow!(n));
      await act(async () => spots.get(n)!.done());
      await settle();
    };
    return { start, remove, spots };
  }

  it('passes over rows without the control, and never takes focus the user has put elsewhere meanwhile', async () => {
    const { start, remove } = await mount([3]);
    await start(2);
    await remove(2);
    // Row 3 has no «Убрать»: row 4's takes focus.
    expect(document.activeElement?.textContent).toBe('Убрать 4');

    // While row 4's call runs the user goes to the search field: it keeps focus when the row leaves.
    await start(4);
    const search = document.querySelector('input')!;
    await act(async () => search.focus());
    await remove(4);
    expect(document.activeElement).toBe(search);
  });

  it('a failed action whose control is left disabled sends focus on to the next row; focus the user then drops from a control given back is left alone', async () => {
    const { start, spots } = await mount();
    // Row 2's call is refused, and the list shows its control disabled (another operator took the request).
    await start(2);
    await act(async () => (globalThis as { disableRow?: (n: number) => void }).disableRow!(2));
    await act(async () => spots.get(2)!.back());
    await act(async () => new Promise((r) => setTimeout(r, 300)));
    expect(document.activeElement?.textContent).toBe('Убрать 3');

    // Row 3's call is refused and its control stays: focus stays on it; a click on a blank part of the page then drops
    // it to <body>, and the list changing meanwhile does not bring it back.
    await start(3);
    await act(async () => spots.get(3)!.back());
    expect(document.activeElement?.textContent).toBe('Убрать 3');
    await act(async () => document.body.focus());
    await act(async () => (globalThis as { removeRow?: (n: number) => void }).removeRow!(1));
    await act(async () => new Promise((r) => setTimeout(r, 300)));
    expect(document.activeElement).toBe(document.body);
  });
});
