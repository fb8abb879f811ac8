// @vitest-environment happy-dom
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { Route, Switch } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answer, cleanup, settle } from '../../test/dom';
import { AppProvider } from '../provider';
import { AboutRoute } from '../routes/info';
import { AppShell } from './app-shell';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// The provider's query client lives as long as the module: each test starts without a public config.
let client: QueryClient | null = null;
function ClientProbe() {
  client = useQueryClient();
  return null;
}

function App() {
  return (
    <AppProvider>
      <ClientProbe />
      <AppShell>
        <Switch>
          <Route path="/">
            <h1>Кошелёк адены</h1>
          </Route>
          <Route path="/help">
            <h1>Помощь</h1>
          </Route>
          <Route path="/about">
            <AboutRoute />
          </Route>
        </Switch>
      </AppShell>
    </AppProvider>
  );
}

let root: Root | null = null;
const header = () => document.querySelector('[data-view="app-bar"] a[href="/"]')?.textContent;
const copyright = () => document.querySelector('[data-testid="copyright"]')?.textContent;
const go = (to: string) => act(async () => navigate(to));

/** Opens `path` with GET /api/public_config answering what `config` resolves to; every other call is a signed-out 401. */
async function open(path: string, config: Promise<Response>) {
  window.history.replaceState(null, '', path);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => (String(url).startsWith('/api/public_config') ? config : answer(401, { message: 'Нужно войти' }))),
  );
  root = createRoot(document.body.appendChild(document.createElement('div')));
  await act(async () => root!.render(<App />));
  await settle();
}

afterEach(async () => {
  await cleanup(root);
  root = null;
  client?.removeQueries({ queryKey: ['public_config'] });
  window.history.replaceState(null, '', '/');
  document.title = 'Адена Кошелёк';
});

describe('the service’s name (BRAND_NAME) in the shell', () => {
  it('says «Адена Кошелёк» while the public config loads, then the server’s brand in the header, footer, tab titles and the about page', async () => {
    // Review finding: BRAND_NAME=«L2 Bank» reached mail and SMS, but the site still said «Адена Кошелёк».
    let send!: (r: Response) => void;
    await open('/', new Promise<Response>((resolve) => (send = resolve)));
    expect(header()).toBe('Адена Кошелёк');
    expect(copyright()).toMatch(/ Адена Кошелёк$/);
    await expect.poll(() => document.title).toBe('Адена Кошелёк');

    await act(async () => send(answer(200, { brand_name: 'L2 Bank', support_email: null, support_telegram: null })));
    await settle();
    expect(header()).toBe('L2 Bank');
    expect(copyright()).toMatch(/^© \d{4}–\d{4} L2 Bank$/);
    await expect.poll(() => document.title).toBe('L2 Bank');

    await go('/help');
    await expect.poll(() => document.title).toBe('Помощь — L2 Bank');
    await go('/about');
    await expect.poll(() => document.title).toBe('О нас — L2 Bank');
    expect(document.querySelector('main article')?.textContent).toContain('«L2 Bank» работает с 2018 года');
    expect(document.body.textContent).not.toContain('Адена Кошелёк');
  });

  it('keeps «Адена Кошелёк» where the public config cannot be read, and takes the brand once it can', async () => {
    await open('/help', Promise.resolve(answer(404, { message: 'Не найдено' })));
    expect(header()).toBe('Адена Кошелёк');
    expect(copyright()).toMatch(/ Адена Кошелёк$/);
    await expect.poll(() => document.title).toBe('Помощь — Адена Кошелёк');
    await go('/about');
    expect(document.querySelector('main article')?.textContent).toContain('«Адена Кошелёк» работает с 2018 года');

    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer(200, { brand_name: 'L2 Bank', support_email: null, support_telegram: null })),
    );
    await act(async () => client!.refetchQueries({ queryKey: ['public_config'] }));
    await settle();
    expect(header()).toBe('L2 Bank');
    await expect.poll(() => document.title).toBe('О нас — L2 Bank');
  });
});
