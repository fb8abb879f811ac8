// @vitest-environment happy-dom
import { act, createElement, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { settle } from '../test/dom';
import { ConfirmDialog } from './confirm-dialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const button = (name: string) => [...document.querySelectorAll('[data-testid="confirm-test"] button')].find((b) => b.textContent === name) as HTMLButtonElement;

describe('the «are you sure?» dialog', () => {
  let root: Root | null = null;
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    document.body.innerHTML = '';
  });

  /** A user that closes on confirm and guards nothing itself; `reopen` opens it again. */
  async function mount(pending = false) {
    const onConfirm = vi.fn();
    let reopen: () => void = () => {};
    function Host() {
      const [open, setOpen] = useState(true);
      reopen = () => setOpen(true);
      return (
        <ConfirmDialog
          open={open}
          onClose={() => setOpen(false)}
          onConfirm={() => {
            onConfirm();
            setOpen(false);
          }}
          title="Отключить?"
          confirmLabel="Отключить"
          danger
          pending={pending}
          testId="confirm-test"
        >
          Событий больше не будет.
        </ConfirmDialog>
      );
    }
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(Host)));
    return { onConfirm, reopen: () => act(async () => reopen()) };
  }

  it('a double click (or a click while it fades out) confirms once per opening; opened again, it confirms again', async () => {
    // Review finding: MUI's buttons still take clicks while the dialog fades out; «Отключить» sent its DELETE twice.
    const { onConfirm, reopen } = await mount();
    const target = button('Отключить');
    await act(async () => {
      target.click();
      target.click();
    });
    await act(async () => target.click());
    expect(onConfirm).toHaveBeenCalledTimes(1);
    await settle();
    await reopen();
    await act(async () => button('Отключить').click());
    expect(onConfirm).toHaveBeenCalledTimes(2);
  });

  it('`pending` turns the action off', async () => {
    const { onConfirm } = await mount(true);
    expect(button('Отключить').disabled).toBe(true);
    expect(button('Отмена').disabled).toBe(false);
    await act(async () => button('Отключить').click());
    expect(onConfirm).not.toHaveBeenCalled();
  });
});
