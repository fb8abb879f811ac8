// @vitest-environment happy-dom
import type { AdminUser } from '@adena/contract';
import { createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, mountWithQuery } from '../../../test/dom';
import { AdminRoleDialog, BlockDialog, TwoFactorOffDialog, VipDialog } from './user-dialogs';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const player = { id: 7, name: 'Ася', email: 'asya@example.com', admin: false } as AdminUser;

describe('the admin-role dialog', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });

  it('keeps asking what it asked when opened: the card read again after the change does not turn «Сделать» into «Снять»', async () => {
    let user = player;
    const mounted = await mountWithQuery(() => createElement(AdminRoleDialog, { user, open: true, onClose: () => {} }));
    root = mounted.root;
    const title = () => document.querySelector('h2')?.textContent;
    const confirm = () => [...document.querySelectorAll('button')].find((b) => b.textContent === 'Сделать' || b.textContent === 'Снять')!;
    expect(title()).toBe('Сделать администратором?');
    expect(confirm().disabled).toBe(false);
    // The grant went through; the card is read again while the dialog is still on screen (fading out).
    user = { ...player, admin: true };
    await mounted.render();
    expect(title()).toBe('Сделать администратором?');
    expect(confirm().textContent).toBe('Сделать');
    expect(confirm().disabled).toBe(true);
  });

  it('names the user at the head of a sentence as «Пользователь …», a nameless one by number', async () => {
    // Review finding: «id 5 получит доступ…», ««Анна» заблокирован» with the verb forced masculine.
    let user = player;
    const mounted = await mountWithQuery(() => createElement(AdminRoleDialog, { user, open: true, onClose: () => {} }));
    root = mounted.root;
    const body = () => document.querySelector('[role="dialog"] p')?.textContent;
    expect(body()).toBe('Пользователь «Ася» получит доступ ко всему разделу администрирования: заявкам, балансам, пользователям.');
    user = { id: 5, name: '', email: null, phone: null, admin: false } as unknown as AdminUser;
    await mounted.render();
    expect(body()).toBe('Пользователь №5 получит доступ ко всему разделу администрирования: заявкам, балансам, пользователям.');
  });

  it('the VIP dialog starts each opening from the card as it is, and says when the player\'s VIP changes while it is open', async () => {
    const until = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
    const dayOf = (iso: string) => {
      const d = new Date(iso);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    let user = { ...player, vip: true, vip_until: until(10) } as AdminUser;
    let open = true;
    const mounted = await mountWithQuery(() => createElement(VipDialog, { user, open, onClose: () => {} }));
    root = mounted.root;
    const date = () => (document.querySelector('input[type="date"]') as HTMLInputElement).value;
    expect(date()).toBe(dayOf(user.vip_until!));
    // Closed; the player buys 30 more days; the card is read again; the operator opens the dialog again.
    open = false;
    await mounted.render();
    user = { ...user, vip_until: until(40) };
    await mounted.render();
    open = true;
    await mounted.render();
    expect(date()).toBe(dayOf(user.vip_until!));
    expect(document.querySelector('[data-testid="vip-changed"]')).toBeNull();
    // While it is open, the player's VIP changes again: said, so the operator does not save over it unseen.
    user = { ...user, vip_until: until(70) };
    await mounted.render();
    expect(document.querySelector('[data-testid="vip-changed"]')?.textContent).toMatch(/^VIP игрока изменился, пока открыт этот диалог \(теперь до \d+ [а-я]+ \d{4} г\.\)\. Проверьте дату\.$/);
  });
});

describe('what a rescue removes, as the dialogs say it', () => {
  let root: Root | null = null;
  afterEach(async () => {
    await cleanup(root);
    root = null;
  });
  const discord = 'Discord, привязанный по почте (и по почте Discord к аккаунту больше не привяжется)';
  const text = (testId: string) => document.querySelector(`[data-testid="${testId}"]`)?.textContent;

  it('«Аккаунт угнан» and «Отключить вход с кодом» say that a Discord linked by email is unlinked and will not be linked by email again', async () => {
    // Review finding: the server's revokeLeftovers unlinks it too, and undoing that takes support editing the database.
    const blocked = { ...player, blocked_at: '2026-11-27T00:00:00Z' } as AdminUser;
    let which: 'stolen' | 'block' | 'two-factor' = 'stolen';
    const mounted = await mountWithQuery(() =>
      which === 'two-factor'
        ? createElement(TwoFactorOffDialog, { user: player, open: true, onClose: () => {} })
        : createElement(BlockDialog, { user: which === 'stolen' ? blocked : player, stolen: which === 'stolen', open: true, onClose: () => {} }),
    );
    root = mounted.root;
    expect(text('block-dialog')).toContain(
      `Удалятся ключи продавца, ключи доступа (passkeys), вебхук и чат Telegram для уведомлений; отвяжется ${discord}. Так после разблокировки ими не воспользуется вор.`,
    );
    which = 'block';
    await mounted.render();
    expect(text('block-dialog')).toContain(`Аккаунт угнан: удалить ключи продавца, ключи доступа (passkeys), вебхук и чат Telegram для уведомлений и отвязать ${discord}, чтобы они не вернулись после разблокировки`);
    which = 'two-factor';
    await mounted.render();
    expect(text('two-factor-off-dialog')).toContain(`вебхук и чат Telegram для уведомлений удалятся, отвяжется ${discord}, все сеансы завершатся`);
  });
});
