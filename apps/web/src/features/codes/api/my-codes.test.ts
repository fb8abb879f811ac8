// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useStepUp } from '../../../lib/step-up';
import { myCodesQueryOptions } from './my-codes';

const refused = () =>
  new Response(JSON.stringify({ message: 'Подтвердите действие кодом из приложения', two_factor_required: true }), {
    status: 403,
    headers: { 'Content-Type': 'application/json' },
  });

describe('all my codes with TOTP on', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    useStepUp.setState({ prompt: null });
  });

  it('opening the list asks for the code; a refetch of a page already shown never opens the prompt by itself', async () => {
    localStorage.setItem('access_token', 'token');
    vi.stubGlobal('fetch', vi.fn(async () => refused()));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const options = myCodesQueryOptions(1, 1, null);

    // Opening: the prompt opens (the player cancels it).
    const opening = qc.fetchQuery(options).catch((e: unknown) => e);
    await vi.waitFor(() => expect(useStepUp.getState().prompt).not.toBeNull());
    useStepUp.getState().answer(null);
    await opening;

    // The page was shown (the code given meanwhile); ten minutes later a buyer activates a code and the page is read again.
    qc.setQueryData(options.queryKey, { data: [], total: 0 });
    await qc.refetchQueries({ queryKey: options.queryKey });
    expect(useStepUp.getState().prompt).toBeNull();
    expect(qc.getQueryData(options.queryKey)).toEqual({ data: [], total: 0 });
  });
});
