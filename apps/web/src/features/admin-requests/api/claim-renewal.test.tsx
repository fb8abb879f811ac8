// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLAIM_RENEW_MS, useClaimRenewal } from './requests';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A card's hook on screen with `active`; returns a way to change it and to take the card away. */
async function card(id: number, active: boolean) {
  function Probe(props: { active: boolean }) {
    useClaimRenewal(id, props.active);
    return null;
  }
  const root = createRoot(document.createElement('div'));
  await act(async () => root.render(createElement(Probe, { active })));
  return {
    set: (next: boolean) => act(async () => root.render(createElement(Probe, { active: next }))),
    unmount: () => act(() => root.unmount()),
  };
}

describe('an operator’s open queue keeps their claims alive', () => {
  const fetch = vi.fn(async () => new Response(JSON.stringify({ success: {} }), { status: 200, headers: { 'Content-Type': 'application/json' } }));
  beforeEach(() => {
    vi.useFakeTimers();
    localStorage.setItem('access_token', 'token');
    fetch.mockClear();
    vi.stubGlobal('fetch', fetch);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  const claims = () => fetch.mock.calls.map((c) => String((c as unknown as [string])[0]));

  it('claims its own pending request again every few minutes while the card is shown, and stops when it is not', async () => {
    const c = await card(42, true);
    expect(claims()).toEqual([]);
    await act(async () => vi.advanceTimersByTime(CLAIM_RENEW_MS));
    expect(claims()).toEqual([expect.stringMatching(/\/api\/admin\/requests\/42\/claim$/)]);
    await act(async () => vi.advanceTimersByTime(CLAIM_RENEW_MS));
    expect(claims()).toHaveLength(2);
    // Decided or released (no longer the caller's): no more renewals.
    await c.set(false);
    await act(async () => vi.advanceTimersByTime(3 * CLAIM_RENEW_MS));
    expect(claims()).toHaveLength(2);
    await c.set(true);
    await c.unmount();
    await act(async () => vi.advanceTimersByTime(3 * CLAIM_RENEW_MS));
    expect(claims()).toHaveLength(2);
  });
});
