// @vitest-environment happy-dom
import type { AdminUser } from '@adena/contract';
import { createElement } from 'react';
import type { Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, mountWithQuery } from '../../../test/dom';
import { AdminRoleDialog } from './user-dialogs';

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
});
