// @vitest-environment happy-dom
import { act, createElement, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../lib/api-client';
import { useUi } from '../lib/ui-store';
import { settle } from '../test/dom';
import { ReasonDialog } from './reason-dialog';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const dialog = () => document.querySelector('[data-testid="reason-test-dialog"]');
const alertText = () => dialog()?.querySelector('[role="alert"]')?.textContent ?? null;
const helperText = () => dialog()?.querySelector('.MuiFormHelperText-root')?.textContent ?? null;
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === name)!;

describe('an operator’s reason dialog refused by the server', () => {
  let root: Root | null = null;
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    document.body.innerHTML = '';
  });

  async function open(failure: unknown, field?: string) {
    const onClose = vi.fn();
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root!.render(
        createElement(ReasonDialog, {
          open: true,
          onClose,
          title: 'Отклонить заявку №7',
          testId: 'reason-test-dialog',
          explanation: 'Причину увидит игрок.',
          label: 'Причина',
          field,
          confirmLabel: 'Отклонить',
          refusedTitle: 'Заявка №7 не отклонена',
          submit: () => Promise.reject(failure),
        }),
      ),
    );
    await act(async () => button('Отклонить').click());
    return onClose;
  }

  it('a request another operator already decided: «Заявка уже обработана» is said above the reason and the dialog stays open', async () => {
    const onClose = await open(new ApiError(409, { message: 'Заявка уже обработана', errors: { id: ['Заявка уже обработана'] } }));
    expect(alertText()).toBe('Заявка уже обработана');
    expect(helperText()).toBeNull();
    expect(onClose).not.toHaveBeenCalled();
    expect(dialog()).not.toBeNull();
  });

  it('a refused reason is said under the field, not twice', async () => {
    await open(new ApiError(422, { message: 'Проверьте поля', errors: { reason: ['Укажите причину'] } }));
    expect(helperText()).toBe('Укажите причину');
    expect(alertText()).toBeNull();
  });

  it('a dialog whose field is not «reason» (closing an incident) keeps its own field’s message under it', async () => {
    await open(new ApiError(422, { message: 'Проверьте поля', errors: { note: ['Не длиннее 500 символов'] } }), 'note');
    expect(helperText()).toBe('Не длиннее 500 символов');
    expect(alertText()).toBeNull();
  });

  it('an incident someone else closed first: said above the note', async () => {
    await open(new ApiError(409, { message: 'Инцидент уже закрыт', errors: { id: ['Инцидент уже закрыт'] } }), 'note');
    expect(alertText()).toBe('Инцидент уже закрыт');
  });

  it('a refusal with no field (a lost connection) is said above the reason', async () => {
    await open(new ApiError(0, { message: 'Нет связи с сервером' }));
    expect(alertText()).toBe('Нет связи с сервером');
    expect(helperText()).toBeNull();
  });
});

describe('a reason the operator typed', () => {
  let root: Root | null = null;
  afterEach(async () => {
    if (root) await act(async () => root!.unmount());
    root = null;
    document.body.innerHTML = '';
  });

  const field = () => document.querySelector<HTMLTextAreaElement>('[data-testid="reason-test-dialog"] textarea:not([aria-hidden])')!;
  const typeReason = (text: string) => {
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!.call(field(), text);
    field().dispatchEvent(new Event('input', { bubbles: true }));
  };
  // MUI closes a dialog on a press and release on the area around it (the container, not the paper).
  const clickBeside = () => {
    const container = dialog()!.querySelector('.MuiDialog-container')!;
    container.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }));
    container.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  };
  const pressEscape = () => dialog()!.querySelector('[role="dialog"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));

  async function mount(submit: (text: string) => Promise<unknown>) {
    let setOpen: (open: boolean) => void = () => {};
    let setTitle: (title: string) => void = () => {};
    const onClose = vi.fn();
    function Host() {
      const [open, set] = useState(true);
      const [title, retitle] = useState('Отклонить заявку №7');
      setOpen = set;
      setTitle = retitle;
      return createElement(ReasonDialog, {
        open,
        onClose: () => {
          onClose();
          set(false);
        },
        title,
        testId: 'reason-test-dialog',
        explanation: 'Причину увидит игрок.',
        label: 'Причина',
        confirmLabel: 'Отклонить',
        refusedTitle: `${title.replace('Отклонить заявку', 'Заявка')} не отклонена`,
        submit,
      });
    }
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(Host)));
    return {
      onClose,
      reopen: (title?: string) =>
        act(async () => {
          if (title) setTitle(title);
          setOpen(true);
        }),
    };
  }

  it('survives a click beside the dialog and Escape, and is cleared by a successful submit', async () => {
    const submit = vi.fn(() => Promise.resolve());
    const { onClose, reopen } = await mount(submit);
    await act(async () => typeReason('Ник не совпадает'));

    await act(async () => clickBeside());
    await settle();
    expect(onClose).not.toHaveBeenCalled();
    expect(field().value).toBe('Ник не совпадает');

    await act(async () => pressEscape());
    await settle();
    expect(onClose).toHaveBeenCalledTimes(1);
    await reopen();
    expect(field().value).toBe('Ник не совпадает');

    await act(async () => button('Отклонить').click());
    await settle();
    expect(submit).toHaveBeenCalledWith('Ник не совпадает');
    expect(onClose).toHaveBeenCalledTimes(2);
    await reopen();
    expect(field().value).toBe('');
  });

  it('belongs to its item: the dialog opened for another request starts empty, and the first one’s reason waits for it', async () => {
    const submit = vi.fn(() => Promise.resolve());
    const { reopen } = await mount(submit);
    await act(async () => typeReason('Ник не совпадает'));
    await act(async () => pressEscape());
    await settle();

    await reopen('Отклонить заявку №8');
    expect(field().value).toBe('');
    await act(async () => pressEscape());
    await settle();
    await reopen('Отклонить заявку №7');
    expect(field().value).toBe('Ник не совпадает');
    expect(submit).not.toHaveBeenCalled();
  });

  it('an empty dialog still closes on a click beside it', async () => {
    const { onClose } = await mount(() => Promise.resolve());
    await act(async () => clickBeside());
    await settle();
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('a late answer acts only on its own opening: the dialog since opened for another request keeps its reason, a late refusal names its request', async () => {
    const answers: Array<{ ok(): void; fail(e: unknown): void }> = [];
    const submit = vi.fn(
      () =>
        new Promise<void>((ok, fail) => {
          answers.push({ ok, fail });
        }),
    );
    const { onClose, reopen } = await mount(submit);
    await act(async () => typeReason('Ник не совпадает'));
    await act(async () => button('Отклонить').click());
    // The answer is slow: the operator presses «Отмена» and turns to request №8.
    await act(async () => button('Отмена').click());
    await reopen('Отклонить заявку №8');
    await act(async () => typeReason('Сумма не пришла'));
    expect(button('Отклонить').disabled).toBe(false);

    await act(async () => answers[0]!.ok());
    await settle();
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(dialog()?.querySelector('h2')?.textContent).toBe('Отклонить заявку №8');
    expect(field().value).toBe('Сумма не пришла');

    await act(async () => button('Отклонить').click());
    await act(async () => button('Отмена').click());
    await reopen('Отклонить заявку №9');
    await act(async () => answers[1]!.fail(new ApiError(409, { message: 'Заявка уже обработана', errors: { id: ['Заявка уже обработана'] } })));
    await settle();
    expect(alertText()).toBeNull();
    expect(useUi.getState().dialog).toMatchObject({ name: 'alert', text: 'Заявка №8 не отклонена', errors: ['Заявка уже обработана'] });
  });
});
