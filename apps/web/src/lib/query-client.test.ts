// @vitest-environment happy-dom
import { MutationObserver, onlineManager } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createQueryClient } from './query-client';

describe('a page opened offline', () => {
  let onLine: { mockRestore(): void } | null = null;
  afterEach(() => {
    onLine?.mockRestore();
    onlineManager.setOnline(true);
  });

  it('says «Нет связи» at once, and clears it when the connection returns before the app has mounted', () => {
    // Review finding: TanStack listened only from the client's mount, after the first screen's prefetch and
    // render; an `online` event in between was missed and the app stayed offline until the network dropped again.
    let online = false;
    onLine = vi.spyOn(navigator, 'onLine', 'get').mockImplementation(() => online);
    const qc = createQueryClient();
    expect(onlineManager.isOnline()).toBe(false);
    online = true;
    window.dispatchEvent(new Event('online'));
    qc.mount();
    expect(onlineManager.isOnline()).toBe(true);
    // Mounted, it follows the browser as before.
    online = false;
    window.dispatchEvent(new Event('offline'));
    expect(onlineManager.isOnline()).toBe(false);
    online = true;
    window.dispatchEvent(new Event('online'));
    expect(onlineManager.isOnline()).toBe(true);
    qc.unmount();
  });
});

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
