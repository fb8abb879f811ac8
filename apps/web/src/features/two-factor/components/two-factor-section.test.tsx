// @vitest-environment happy-dom
import { act, createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeTopDialog } from '../../../lib/telegram-back';
import { answer, cleanup, mountWithQuery, playerUser, settle, type } from '../../../test/dom';
import { TwoFactorSection } from './two-factor-section';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
// happy-dom has no 2D canvas to draw the QR code on.
vi.mock('qrcode', () => ({ toCanvas: async () => undefined }));

const button = (text: string) => [...document.querySelectorAll('button')].find((b) => b.textContent === text);
const codes = () => document.querySelector('[data-testid="recovery-codes"]');
const backdrop = () => document.querySelector('.MuiBackdrop-root') as HTMLElement;

/** The server's side of the section: the user (TOTP on with `start`), setup, enable and disable. */
function server(start: boolean) {
  let twoFactor = start;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const path = new URL(String(url), 'http://localhost').pathname;
      if (path === '/api/user') return answer(200, playerUser(twoFactor));
      if (path === '/api/2fa/setup') return answer(200, { secret: 'JBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/Adena:p?secret=JBSWY3DPEHPK3PXP' });
      if (path === '/api/2fa/enable') {
        twoFactor = true;
        return answer(200, { enabled: true, recovery_codes: ['aaaa-bbbb', 'cccc-dddd'] });
      }
      if (path === '/api/2fa/disable') {
        twoFactor = false;
        return answer(200, { success: true });
      }
      return answer(404, { message: 'Не найдено' });
    }),
  );
}

describe("the profile's TOTP setup dialog", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('stays open over the recovery codes whatever is tapped beside it, until «Коды сохранены»', async () => {
    server(false);
    ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
    await settle();

    // Before the codes, a tap beside the dialog closes it as ever.
    await act(async () => button('Включить')!.click());
    await settle();
    expect(document.querySelector('[data-testid="totp-secret"]')).not.toBeNull();
    await act(async () => backdrop().click());
    await settle();
    expect(document.querySelector('[data-testid="totp-secret"]')).toBeNull();

    await act(async () => button('Включить')!.click());
    await settle();
    await act(async () => type(document.querySelector('[data-testid="totp-enable-code"]') as HTMLInputElement, '123456'));
    await act(async () => [...document.querySelectorAll('form button')].find((b) => b.textContent === 'Включить')!.dispatchEvent(new MouseEvent('click', { bubbles: true })));
    await settle();
    expect(codes()).not.toBeNull();
    expect(button('Закрыть')).toBeUndefined();

    await act(async () => backdrop().click());
    await act(async () => document.querySelector('[role="dialog"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
    await act(async () => void closeTopDialog());
    await settle();
    expect(codes()).not.toBeNull();

    await act(async () => button('Коды сохранены')!.click());
    await settle();
    expect(codes()).toBeNull();
    expect(button('Выключить')).toBeDefined();
  });

  it('cannot be closed while «Включить» is on its way: its answer brings the recovery codes, shown once', async () => {
    // Review finding: «Закрыть» or a tap beside it closed the dialog meanwhile; TOTP came on and the codes were never seen.
    let release: () => void = () => {};
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const path = new URL(String(url), 'http://localhost').pathname;
        if (path === '/api/user') return answer(200, playerUser(false));
        if (path === '/api/2fa/setup') return answer(200, { secret: 'JBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/Adena:p?secret=JBSWY3DPEHPK3PXP' });
        if (path === '/api/2fa/enable') {
          await new Promise<void>((r) => (release = r));
          return answer(200, { enabled: true, recovery_codes: ['aaaa-bbbb', 'cccc-dddd'] });
        }
        return answer(404, { message: 'Не найдено' });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
    await settle();
    await act(async () => button('Включить')!.click());
    await settle();
    await act(async () => type(document.querySelector('[data-testid="totp-enable-code"]') as HTMLInputElement, '123456'));
    await act(async () => [...document.querySelectorAll('form button')].find((b) => b.textContent === 'Включить')!.dispatchEvent(new MouseEvent('click', { bubbles: true })));
    await settle();
    expect(button('Закрыть')?.disabled).toBe(true);
    await act(async () => backdrop().click());
    await act(async () => document.querySelector('[role="dialog"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
    await act(async () => void closeTopDialog());
    await settle();
    await act(async () => release());
    await settle();
    expect(codes()?.textContent).toContain('aaaa-bbbb');
  });

  it('«Выключить» cannot be closed while it is on its way, so a refused code is said in it', async () => {
    // Review finding: «Отмена», Escape or a tap beside it closed the dialog meanwhile; the refusal landed nowhere.
    let release: () => void = () => {};
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const path = new URL(String(url), 'http://localhost').pathname;
        if (path === '/api/user') return answer(200, playerUser(true));
        if (path === '/api/2fa/disable') {
          await new Promise<void>((r) => (release = r));
          return answer(422, { message: 'Проверьте поля', errors: { code: ['Неверный код'] } });
        }
        return answer(404, { message: 'Не найдено' });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
    await settle();
    await act(async () => button('Выключить')!.click());
    await settle();
    const input = document.querySelector('[role="dialog"] input') as HTMLInputElement;
    await act(async () => type(input, '123456'));
    await act(async () => document.getElementById('two-factor-disable-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(button('Отмена')?.disabled).toBe(true);
    await act(async () => backdrop().click());
    await act(async () => document.querySelector('[role="dialog"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
    await act(async () => void closeTopDialog());
    await settle();
    await act(async () => release());
    await settle();
    expect(document.querySelector('[role="dialog"]')?.textContent).toContain('Неверный код');
    expect(button('Отмена')?.disabled).toBe(false);
  });

  it('«Выключить» says a refusal without a field in an alert that a screen reader announces', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const path = new URL(String(url), 'http://localhost').pathname;
        if (path === '/api/user') return answer(200, playerUser(true));
        if (path === '/api/2fa/disable') return answer(429, { message: 'Слишком много попыток. Попробуйте через 15 мин' });
        return answer(404, { message: 'Не найдено' });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
    await settle();
    await act(async () => button('Выключить')!.click());
    await settle();
    await act(async () => type(document.querySelector('[role="dialog"] input') as HTMLInputElement, '123456'));
    await act(async () => document.getElementById('two-factor-disable-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(document.querySelector('[role="dialog"] [role="alert"]')?.textContent).toBe('Слишком много попыток. Попробуйте через 15 мин');
  });
  it('«Новые резервные коды»: a wrong code is said under the field; the new codes stay on screen until «Коды сохранены»', async () => {
    const sent: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        const path = new URL(String(url), 'http://localhost').pathname;
        if (path === '/api/user') return answer(200, playerUser(true));
        if (path === '/api/2fa/recovery_codes') {
          const { code } = JSON.parse(String(init?.body));
          sent.push(code);
          if (code !== 'abcde12345') return answer(422, { message: 'Проверьте поля', errors: { code: ['Неверный код. Возьмите новый код из приложения'] } });
          return answer(200, { recovery_codes: ['new11-aaaaa', 'new22-bbbbb'] });
        }
        return answer(404, { message: 'Не найдено' });
      }),
    );
    ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
    await settle();
    await act(async () => button('Новые резервные коды')!.click());
    await settle();
    const input = () => document.querySelector('[data-testid="new-recovery-codes-dialog"] input') as HTMLInputElement;
    const submit = () => act(async () => document.getElementById('new-recovery-codes-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await act(async () => type(input(), '654321'));
    await submit();
    await settle();
    expect(document.querySelector('[role="dialog"]')?.textContent).toContain('Неверный код. Возьмите новый код из приложения');
    expect(codes()).toBeNull();
    // A recovery code typed on the Russian layout, with its dash, reads as the Latin keys it was typed with.
    await act(async () => type(input(), 'фисву-12345'));
    await submit();
    await settle();
    expect(sent).toEqual(['654321', 'abcde12345']);
    expect(codes()?.textContent).toContain('new11-aaaaa');

    await act(async () => backdrop().click());
    await act(async () => document.querySelector('[role="dialog"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
    await act(async () => void closeTopDialog());
    await settle();
    expect(codes()).not.toBeNull();
    await act(async () => button('Коды сохранены')!.click());
    // Gone once the dialog has faded out.
    await act(() => new Promise((r) => setTimeout(r, 500)));
    expect(codes()).toBeNull();
    // Opened again, it starts from the code field, not from the codes of the last time.
    await act(async () => button('Новые резервные коды')!.click());
    await settle();
    expect(codes()).toBeNull();
    expect(input().value).toBe('');
  });
});

describe('focus after TOTP is turned on or off, for a keyboard or screen-reader user', () => {
  // Chromium walk: after «Коды сохранены» or «Выключить» the section's buttons were swapped under the dialog, MUI gave
  // focus back to the button that had opened it, gone by then, and focus fell to <body>.
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });
  const press = async (b: HTMLButtonElement | undefined) => {
    expect(b).toBeDefined();
    await act(async () => {
      b!.focus();
      b!.click();
    });
    await settle();
  };
  /** Long enough for a dialog's closing transition to end and the page to drop it. */
  const dialogGone = () => act(async () => new Promise((r) => setTimeout(r, 400)));
  const focused = () => (document.activeElement === document.body ? 'body' : document.activeElement?.textContent);

  it('«Коды сохранены» leaves focus on «Новые резервные коды», the first button in place of «Включить»', async () => {
    server(false);
    ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
    await settle();
    await press(button('Включить'));
    await act(async () => type(document.querySelector('[data-testid="totp-enable-code"]') as HTMLInputElement, '123456'));
    await act(async () => [...document.querySelectorAll('form button')].find((b) => b.textContent === 'Включить')!.dispatchEvent(new MouseEvent('click', { bubbles: true })));
    await settle();
    await press(button('Коды сохранены'));
    await dialogGone();
    expect(button('Включить')).toBeUndefined();
    expect(focused()).toBe('Новые резервные коды');
  });

  for (const [opener, submit, call] of [
    ['Выключить', 'two-factor-disable-form', '/api/2fa/disable'],
    ['Новые резервные коды', 'new-recovery-codes-form', '/api/2fa/recovery_codes'],
  ] as const) {
    it(`a wrong code in «${opener}» puts focus on the code field that says so, not on the dialog (Chromium walk)`, async () => {
      vi.stubGlobal(
        'fetch',
        vi.fn(async (url: string) => {
          const path = new URL(String(url), 'http://localhost').pathname;
          if (path === '/api/user') return answer(200, playerUser(true));
          if (path === call) return answer(422, { message: 'Проверьте поля', errors: { code: ['Неверный код. Возьмите новый код из приложения'] } });
          return answer(404, { message: 'Не найдено' });
        }),
      );
      ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
      await settle();
      await press(button(opener));
      const input = document.querySelector('[role="dialog"] input') as HTMLInputElement;
      await act(async () => type(input, '000000'));
      // The dialog's own button sends it (and is disabled meanwhile).
      await act(async () => (document.querySelector(`button[form="${submit}"]`) as HTMLButtonElement).focus());
      await act(async () => document.getElementById(submit)!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
      await settle();
      expect(document.querySelector('[role="dialog"]')?.textContent).toContain('Неверный код');
      expect(document.activeElement).toBe(input);
    });
  }

  it('«Выключить» leaves focus on «Включить», which takes its place', async () => {
    server(true);
    ({ root } = await mountWithQuery(() => createElement(TwoFactorSection)));
    await settle();
    await press(button('Выключить'));
    await act(async () => type(document.querySelector('[role="dialog"] input') as HTMLInputElement, '123456'));
    await act(async () => document.getElementById('two-factor-disable-form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    await dialogGone();
    expect(button('Выключить')).toBeUndefined();
    expect(focused()).toBe('Включить');
  });
});
