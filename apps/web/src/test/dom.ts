import type { User } from '@adena/contract/lite';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, createElement, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { vi } from 'vitest';
import { useRequestKeys } from '../hooks/use-request-key';

/** A JSON response with the given status, as a stubbed `fetch` returns it. */
export const answer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** Lets stubbed fetches resolve and React commit what they caused. */
export const settle = () => act(async () => new Promise((r) => setTimeout(r, 20)));

/** Types into a React-controlled input as a person does (the value setter React watches, then `input`). */
export function type(input: HTMLInputElement, text: string) {
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, text);
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

/** Runs a hook inside a QueryClientProvider and hands back its latest value. */
export async function renderHook<T>(qc: QueryClient, hook: () => T) {
  const result: { current: T | null } = { current: null };
  function Probe() {
    result.current = hook();
    return null;
  }
  const root = createRoot(document.createElement('div'));
  await act(async () => root.render(createElement(QueryClientProvider, { client: qc }, createElement(Probe))));
  return { result: result as { current: T }, unmount: () => act(() => root.unmount()) };
}

/** A test's afterEach: unmounts what it rendered, drops stubbed globals, empties the page and storage, forgets the request keys kept in doubt. */
export async function cleanup(root: Root | null) {
  if (root) await act(async () => root.unmount());
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  localStorage.clear();
  sessionStorage.clear();
  useRequestKeys.setState({ kept: {} });
}

/**
 * Renders `element()` into the page inside a QueryClientProvider, signed in, with mutations sent even
 * while the browser looks offline. `render()` renders it again (a changed prop, a remount's test);
 * the test's afterEach passes `root` to cleanup.
 */
export async function mountWithQuery(element: () => ReactElement) {
  localStorage.setItem('access_token', 'token');
  const qc = new QueryClient({ defaultOptions: { mutations: { networkMode: 'always' } } });
  const root = createRoot(document.body.appendChild(document.createElement('div')));
  const render = () => act(async () => root.render(createElement(QueryClientProvider, { client: qc }, element())));
  await render();
  return { root, render };
}

/** A signed-in player as `GET /api/user` answers it, with or without TOTP on. */
export const playerUser = (twoFactor: boolean): User => ({
  id: 5,
  name: 'Продавец',
  email: 'seller@example.com',
  phone: null,
  admin: false,
  vip: false,
  vip_until: null,
  telegram_linked: false,
  two_factor: twoFactor,
  has_password: true,
  created_at: '2026-11-01T00:00:00Z',
});
