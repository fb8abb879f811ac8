// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { cancelStepUp, useStepUp, withStepUp } from './step-up';

const asksCode = () => new ApiError(403, { message: 'Подтвердите действие кодом', two_factor_required: true });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the step-up prompt of a screen that went away', () => {
  afterEach(() => useStepUp.setState({ prompt: null }));

  it('is not asked again over another screen when the code typed before leaving was wrong', async () => {
    // Diff review: the card was left while the call with the typed code was on its way; the wrong code's retry asked again.
    let answerCall: (e: unknown) => void = () => {};
    const run = () => new Promise<never>((_, reject) => (answerCall = reject));
    const done = withStepUp(run, { about: 'Отключить вход с кодом для «Ася» (id 42)', tag: 'admin-user:42' });
    answerCall(asksCode());
    await settle();
    expect(useStepUp.getState().prompt?.tag).toBe('admin-user:42');
    useStepUp.getState().answer('111111');
    await settle();
    // The call with the code is on its way; the operator opens another card.
    cancelStepUp('admin-user:42');
    answerCall(asksCode());
    await expect(done).rejects.toBeInstanceOf(ApiError);
    expect(useStepUp.getState().prompt).toBeNull();
    // Back on that card later, the action asks as before.
    const again = withStepUp(() => Promise.reject(asksCode()), { tag: 'admin-user:42' });
    await settle();
    expect(useStepUp.getState().prompt?.tag).toBe('admin-user:42');
    useStepUp.getState().answer(null);
    await expect(again).rejects.toBeInstanceOf(ApiError);
  });
});
