import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2EServer, launchBrowser, newPage, startServer } from './harness';

describe('a visitor opens the home page', () => {
  let server: E2EServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('sees a Russian page and can pick one of the demo servers', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(server.url);
    expect(await page.getAttribute('html', 'lang')).toBe('ru');
    const picker = page.getByRole('combobox', { name: 'Игровой сервер' });
    await picker.waitFor();
    const options = await picker.locator('option:not([disabled])').allTextContents();
    expect(options).toEqual(['Scryde x50', 'Asterios x5', 'E-Global x1']);
    await picker.selectOption({ label: 'Asterios x5' });
    await page.reload();
    const chosen = () => page.getByRole('combobox', { name: 'Игровой сервер' }).evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent);
    await expect.poll(chosen).toBe('Asterios x5');
    await context.close();
  });
});
