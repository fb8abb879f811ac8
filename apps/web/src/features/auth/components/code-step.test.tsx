// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { cleanup } from '../../../test/dom';
import { CodeStep } from './code-step';

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
});
