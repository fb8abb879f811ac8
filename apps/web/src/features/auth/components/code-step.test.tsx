// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { cleanup } from '../../../test/dom';
import { CodeStep, type ResendOutcome } from './code-step';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

describe('the code step', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
    vi.useRealTimers();
  });

  it("a refused resend counts down the server's Retry-After, not a fixed minute and not nothing", async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const refused = new ApiError(429, { message: 'Код уже отправлен. Новый можно запросить через 45 с' }, 45);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root!.render(createElement(CodeStep, { sentTo: 'a@example.com', busy: false, onSubmit: () => {}, onResend: async () => ({ sent: false, error: refused }), onRestart: () => {} })),
    );
    const resend = () => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Отправить код ещё раз'))!;
    expect(resend().textContent).toBe('Отправить код ещё раз через 60\u00a0с');
    await act(async () => vi.advanceTimersByTime(60_000));
    expect(resend().textContent).toBe('Отправить код ещё раз');
    await act(async () => resend().click());
    expect(resend().textContent).toBe('Отправить код ещё раз через 45\u00a0с');
    expect(resend().disabled).toBe(true);
    await act(async () => vi.advanceTimersByTime(45_000));
    expect(resend().disabled).toBe(false);
  });

  it('a long refusal (the sign-up SMS budget: an hour) is counted in minutes and hours on the button, as the server says it', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    let wait = 3540;
    const refusal = () => new ApiError(429, { message: 'Сейчас мы не можем отправить SMS для регистрации. Зарегистрируйтесь по почте или попробуйте через 59 мин' }, wait);
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root!.render(createElement(CodeStep, { sentTo: '+79001234567', busy: false, onSubmit: () => {}, onResend: async () => ({ sent: false, error: refusal() }), onRestart: () => {} })),
    );
    const resend = () => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Отправить код ещё раз'))!;
    await act(async () => vi.advanceTimersByTime(60_000));
    await act(async () => resend().click());
    expect(resend().textContent).toBe('Отправить код ещё раз через 59\u00a0мин');
    await act(async () => vi.advanceTimersByTime(3540_000 - 90_000));
    expect(resend().textContent).toBe('Отправить код ещё раз через 90\u00a0с');
    await act(async () => vi.advanceTimersByTime(90_000));
    wait = 20 * 3600;
    await act(async () => resend().click());
    expect(resend().textContent).toBe('Отправить код ещё раз через 20\u00a0ч');
  });

  it('a double tap on «Отправить код ещё раз» sends one resend: the button is off from the tap until the answer', async () => {
    let release: (outcome: ResendOutcome) => void = () => {};
    const onResend = vi.fn(() => new Promise<ResendOutcome>((r) => (release = r)));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    // Sent more than a minute ago: the resend is on.
    await act(async () =>
      root!.render(createElement(CodeStep, { sentTo: 'a@example.com', sentAt: Date.now() - 61_000, busy: false, onSubmit: () => {}, onResend, onRestart: () => {} })),
    );
    const resend = () => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Отправить код ещё раз'))!;
    expect(resend().disabled).toBe(false);
    // Two taps before the page has re-rendered, then a third once it has.
    await act(async () => {
      resend().click();
      resend().click();
    });
    expect(resend().disabled).toBe(true);
    await act(async () => resend().click());
    expect(onResend).toHaveBeenCalledTimes(1);

    await act(async () => release({ sent: true }));
    expect(resend().textContent).toMatch(/через 6[01]\u00a0с$/);
    expect(onResend).toHaveBeenCalledTimes(1);
  });

  it('a resend that failed turns the button back on (nothing to wait for said by the server)', async () => {
    const onResend = vi.fn(async (): Promise<ResendOutcome> => ({ sent: false, error: new Error('offline') }));
    root = createRoot(document.body.appendChild(document.createElement('div')));
    await act(async () =>
      root!.render(createElement(CodeStep, { sentTo: 'a@example.com', sentAt: Date.now() - 61_000, busy: false, onSubmit: () => {}, onResend, onRestart: () => {} })),
    );
    const resend = () => [...document.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Отправить код ещё раз'))!;
    await act(async () => resend().click());
    expect(resend().disabled).toBe(false);
    await act(async () => resend().click());
    expect(onResend).toHaveBeenCalledTimes(2);
  });
});
