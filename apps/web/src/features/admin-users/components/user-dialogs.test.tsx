// @vitest-environment happy-dom
import type { AdminUser } from '@adena/contract';
import { createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, mountWithQuery } from '../../../test/dom';
import { AdminRoleDialog, VipDialog } from './user-dialogs';

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
