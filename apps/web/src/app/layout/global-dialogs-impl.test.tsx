// @vitest-environment happy-dom
import { ALERT_TIMEOUT_MS, SNACKBAR_TIMEOUT_MS } from '@adena/contract/lite';
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UNTIL_CLOSED, useUi } from '../../lib/ui-store';
import { cleanup } from '../../test/dom';
import GlobalDialogsImpl from './global-dialogs-impl';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the alert dialog', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await act(async () => useUi.getState().closeDialog());
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });

  const shown = () => document.querySelector('[data-testid="alert-dialog"]')?.textContent ?? null;

  it("closes itself after ALERT_TIMEOUT_MS (SPEC's alerts), and one opened with UNTIL_CLOSED stays until «Закрыть»", async () => {
    vi.useFakeTimers();
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(GlobalDialogsImpl)));

    await act(async () => useUi.getState().alert('Код активирован'));
    expect(shown()).toContain('Код активирован');
    await act(async () => vi.advanceTimersByTimeAsync(ALERT_TIMEOUT_MS + 10));
    expect(useUi.getState().dialog.name).toBe('none');

    await act(async () => useUi.getState().alert('Заявка №7: Сервис временно недоступен', [], UNTIL_CLOSED));
    await act(async () => vi.advanceTimersByTimeAsync(10 * ALERT_TIMEOUT_MS));
    expect(shown()).toContain('Заявка №7: Сервис временно недоступен');
    const close = [...document.querySelectorAll<HTMLButtonElement>('[data-testid="alert-dialog"] button')].find((b) => b.textContent === 'Закрыть')!;
    await act(async () => close.click());
    expect(useUi.getState().dialog.name).toBe('none');
  });
});

describe('the snackbar', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await act(async () => useUi.getState().closeSnackbar());
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });

  it('a notice shown while another is up gets its whole time, not what was left of the one before', async () => {
    vi.useFakeTimers();
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () => root!.render(createElement(GlobalDialogsImpl)));
    const shown = () => (useUi.getState().snackbar.open ? (document.querySelector('.MuiSnackbar-root')?.textContent ?? null) : null);

    await act(async () => useUi.getState().showSnackbar('Заявка на вывод 1 500 000 аден создана'));
    await act(async () => vi.advanceTimersByTimeAsync(SNACKBAR_TIMEOUT_MS - 500));
    await act(async () => useUi.getState().showSnackbar('Заявка №7 отклонена', 'error'));
    await act(async () => vi.advanceTimersByTimeAsync(SNACKBAR_TIMEOUT_MS - 100));
    expect(shown()).toBe('Заявка №7 отклонена');
    await act(async () => vi.advanceTimersByTimeAsync(200));
    expect(shown()).toBeNull();
  });
});
