import { MutationObserver, onlineManager } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from './query-client';

describe('actions made offline', () => {
  afterEach(() => onlineManager.setOnline(true));

  it('are sent at once and fail, never held and sent when the connection returns', async () => {
    const qc = createQueryClient();
    onlineManager.setOnline(false);
    const send = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    const buy = new MutationObserver(qc, { mutationFn: send });
    const outcome = await Promise.race([buy.mutate().then(() => 'sent', () => 'failed'), new Promise((r) => setTimeout(() => r('held'), 500))]);
    expect(outcome).toBe('failed');
    expect(send).toHaveBeenCalledTimes(1);
    // The player has moved on (closed the dialog); the connection comes back: nothing goes out again.
    buy.reset();
    onlineManager.setOnline(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(send).toHaveBeenCalledTimes(1);
  });
});
