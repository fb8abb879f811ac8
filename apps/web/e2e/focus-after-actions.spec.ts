import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newToken } from '../../server/src/lib/tokens';
import { totpCode } from '../../server/src/modules/two-factor/totp';
import { createUser, createWallet, firstServerId, fund, TEST_TOTP_SECRET } from '../../server/test/factories';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

// From the Chromium walk: an action that took away the very button that started it (its row left the list) dropped
// focus to <body>, and a keyboard user's next Tab started from the header. Keyboard only here: Tab and Enter.

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:127.0) Gecko/20100101 Firefox/127.0';

type TestUser = Awaited<ReturnType<typeof createUser>>;

/** The focused element's accessible name (aria-label, else its text), and the queue card it is on. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    if (!a || a === document.body) return 'body';
    const name = a.getAttribute('aria-label') ?? a.textContent ?? '';
    const card = a.closest('[data-testid="admin-request"]')?.querySelector('p')?.textContent;
    return card ? `${name} @ ${card}` : name;
  });

/** Tabs (at most `limit` times) until the focused element's name is `name`. */
async function tabTo(page: Page, name: string, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if ((await focused(page)).startsWith(name)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached «${name}»; focus is on «${await focused(page)}»`);
}

describe('focus after an action removes its own button (Chromium, keyboard only)', () => {
  let server: E2EServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await server?.close();
  });

  async function openAs(user: TestUser, path: string) {
    const { context, page } = await newPage(browser);
    contexts.push(context);
    await context.addInitScript((t) => localStorage.setItem('access_token', t), user.token);
    await page.goto(`${server.url}${path}`);
    return page;
  }

  it('«Завершить» of a session moves focus to the next session’s «Завершить», and Tab goes on from there', async () => {
    const user = await createUser(server.db.kysely);
    const k = server.db.kysely;
    for (const [ua, hours] of [
      [IPHONE, 1],
      [ANDROID, 2],
      [FIREFOX, 3],
    ] as const) {
      await k
        .insertInto('tokens')
        .values({ user_id: user.id, kind: 'access', token_hash: hashToken(newToken()), method: 'email', ip: '203.0.113.5', user_agent: ua, last_seen_at: new Date(Date.now() - hours * 3_600_000) })
        .execute();
    }
    const page = await openAs(user, '/profile');
    await expect.poll(() => page.getByTestId('session').count()).toBe(4);
    const buttons = await page.getByRole('button', { name: /^Завершить сеанс/ }).evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
    expect(buttons).toHaveLength(3);

    await tabTo(page, buttons[1]!);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('session').count()).toBe(3);
    await expect.poll(() => focused(page)).toBe(buttons[2]);
    // The last one: focus goes to the one above it.
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('session').count()).toBe(2);
    await expect.poll(() => focused(page)).toBe(buttons[0]);
    // And the only one left: the list takes focus; Tab goes on below it, not from the page's top.
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('session').count()).toBe(1);
    await expect.poll(() => focused(page)).toBe('Сеансы');
    await page.keyboard.press('Tab');
    const after = await page.evaluate(() => {
      const list = document.querySelector('ul[aria-label="Сеансы"]')!;
      return Boolean(list.compareDocumentPosition(document.activeElement!) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(after).toBe(true);
  });

  it('an operator’s rejection moves focus to the next card’s «Отклонить», a completion to the next card’s «Адена получена»', async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const operator = await createUser(db, { admin: true, name: 'Оператор' });
    const player = await createUser(db, { name: 'Игрок' });
    const w = await createWallet(db, player.id, sid, 'Hero');
    const cashier = (await db.selectFrom('gamesservers').select('cashier_nick').where('id', '=', sid).executeTakeFirstOrThrow()).cashier_nick;
    const ids = [];
    for (const min of [30, 20, 10]) {
      const r = await db
        .insertInto('balance_requests')
        .values({ user_id: player.id, wallet_id: w.id, gamesserver_id: sid, nick: 'Hero', cashier_nick: cashier, type: 'input', currency_type: 1, amount: 5_000_000n, created_at: new Date(Date.now() - min * 60_000) })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(r.id);
    }
    const page = await openAs(operator, '/admin');
    await expect.poll(() => page.getByTestId('admin-request').count()).toBe(3);
    const [first, second, third] = ids.map((id) => `Пополнение №${id}`);

    // Reject the first: its dialog asks for a reason, and the card leaves the queue.
    await tabTo(page, `Отклонить @ ${first}`);
    await page.keyboard.press('Enter');
    await page.getByTestId('reject-dialog').waitFor();
    await page.keyboard.type('Адена не пришла');
    await tabTo(page, 'Отклонить', 5);
    expect(await focused(page)).toBe('Отклонить');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('admin-request').count()).toBe(2);
    await expect.poll(() => focused(page)).toBe(`Отклонить @ ${second}`);

    // Complete the next one from its own button.
    await tabTo(page, `Адена получена @ ${second}`);
    await page.keyboard.press('Enter');
    await page.getByTestId('complete-dialog').waitFor();
    await tabTo(page, 'Адена получена', 5);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('admin-request').count()).toBe(1);
    await expect.poll(() => focused(page)).toBe(`Адена получена @ ${third}`);
  });

  it('«Показать коды» with the authenticator\'s code moves focus to the first code\'s «Скопировать код», not <body> (walk 14)', async () => {
    const db = server.db.kysely;
    const sid = await firstServerId(db);
    const player = await createUser(db, { name: 'Скрытые коды', totp: true });
    const w = await createWallet(db, player.id, sid, 'Masked');
    await fund(db, w, 5_000_000n);
    const bought = await server.app.inject({
      method: 'POST',
      url: '/api/show_code/',
      headers: { ...player.auth, 'x-two-factor-code': totpCode(TEST_TOTP_SECRET, new Date()), 'idempotency-key': newToken() },
      payload: { gamesserver_id: sid, nominal: 1_000_000, wallet_id: w.id },
    });
    expect(bought.statusCode).toBe(200);
    // Another session, signed in with the code but without a step-up since: the texts come masked.
    const fresh = newToken();
    await db.insertInto('tokens').values({ user_id: player.id, kind: 'access', token_hash: hashToken(fresh), method: 'two_factor' }).execute();
    const { context, page } = await newPage(browser);
    contexts.push(context);
    await context.addInitScript(
      ([t, s]) => {
        localStorage.setItem('access_token', t as string);
        localStorage.setItem('gamesserver_id', s as string);
      },
      [fresh, String(sid)],
    );
    await page.goto(`${server.url}/?tab=codes`);
    await page.getByTestId('masked-codes-note').waitFor();
    await tabTo(page, 'Показать коды');
    await page.keyboard.press('Enter');
    const input = page.getByLabel('Код из приложения');
    await input.waitFor();
    await db.updateTable('users').set({ totp_last_step: null }).where('id', '=', player.id).execute();
    await input.fill(totpCode(TEST_TOTP_SECRET, new Date()));
    await page.keyboard.press('Enter');
    await page.getByTestId('masked-codes-note').waitFor({ state: 'detached' });
    await expect.poll(() => focused(page)).toBe('Скопировать код');
  });
});
