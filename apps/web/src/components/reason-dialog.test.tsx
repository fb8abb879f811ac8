// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../lib/api-client';
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
          pending: false,
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
