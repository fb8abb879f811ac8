import { useRef } from 'react';
import { create } from 'zustand';
import { refusedForSure } from '../lib/api-client';

/** A request's Idempotency-Key while it is in doubt: tries still running, and whether one lost its answer. */
interface KeptKey {
  key: string;
  pending: number;
  lost: boolean;
}

interface RequestKeys {
  /** By request: the operation and what is sent (server, currency, amount…), as `useRequestKey` names it. */
  kept: Record<string, KeptKey>;
  /** A try of `request` starts: the key it is sent with (the one kept in doubt, else a new one). */
  begin(request: string): string;
  /** Its answer came: the request is done, so the next one like it is a new request with a new key. */
  succeeded(request: string, key: string): void;
  /** It failed: the key is dropped only when nothing sent with it can have gone through. */
  failed(request: string, key: string, err: unknown): void;
}

const newKey = () => crypto.randomUUID();
const without = (kept: Record<string, KeptKey>, request: string) => Object.fromEntries(Object.entries(kept).filter(([r]) => r !== request));

/**
 * The Idempotency-Keys of requests that move value and may have gone through: one per request (the
 * operation and its meaningful fields), kept outside React so that closing a dialog, switching tabs
 * or servers (which unmount the forms) does not lose it. A try still running and a try whose answer
 * was lost (no connection, 5xx) leave the request in doubt: sending the same request again then uses
 * the same key and is answered from the first try instead of moving value twice. Another request
 * (other fields) is another entry with its own key, since the old key with another body is refused
 * (409) however often it is tried. The key is dropped only once the outcome is known: a success, or
 * a refusal (4xx) when no try with this key is running or lost its answer. A retry refused before it
 * reached the call (429, 401, a TOTP prompt) after a lost answer proves nothing about the first try.
 *
 * In memory, not sessionStorage: what must survive is the page's own life (a closed dialog, a tab
 * or server switch, a remount). A reload reads the wallets, history and codes afresh, so the player
 * sees whether the first try went through; a key kept in sessionStorage would also outlive a
 * sign-out in that tab and be copied into a duplicated tab, and stale entries would need expiring
 * (the server forgets keys after a day).
 */
export const useRequestKeys = create<RequestKeys>((set, get) => ({
  kept: {},
  begin(request) {
    const k = get().kept[request] ?? { key: newKey(), pending: 0, lost: false };
    set((s) => ({ kept: { ...s.kept, [request]: { ...k, pending: k.pending + 1 } } }));
    return k.key;
  },
  succeeded(request, key) {
    if (get().kept[request]?.key !== key) return;
    set((s) => ({ kept: without(s.kept, request) }));
  },
  failed(request, key, err) {
    const k = get().kept[request];
    if (k?.key !== key) return;
    const next = { ...k, pending: k.pending - 1, lost: k.lost || !refusedForSure(err) };
    set((s) => ({ kept: next.pending > 0 || next.lost ? { ...s.kept, [request]: next } : without(s.kept, request) }));
  },
}));

/** Whether a request of `useRequestKey` is in doubt (a try running, or one whose answer was lost). */
export const inDoubt = (request: string) => request in useRequestKeys.getState().kept;

/**
 * The Idempotency-Key of a form that moves value (see `useRequestKeys`). `operation` names the call
 * ('take', 'show_code'…); each try names what it sends. The form remembers the last request it sent,
 * so closing it can keep its fields while that request is in doubt.
 */
export function useRequestKey(operation: string) {
  const last = useRef<string | null>(null);
  return {
    /**
     * Sends one try of `request` with its key; the key's fate is recorded when the call settles,
     * before the returned promise does, and whether or not the form is still open or mounted.
     */
    async send<T>(request: string, call: (idempotencyKey: string) => Promise<T>): Promise<T> {
      const id = `${operation}:${request}`;
      last.current = id;
      const keys = useRequestKeys.getState();
      const key = keys.begin(id);
      try {
        const result = await call(key);
        keys.succeeded(id, key);
        return result;
      } catch (err) {
        keys.failed(id, key, err);
        throw err;
      }
    },
    /** Whether `request` (as `send` names it) is in doubt: a try of it running, or one whose answer was lost. */
    keeps: (request: string) => inDoubt(`${operation}:${request}`),
    /** Whether the last request this form sent may still go through or have gone through (its fields and key are kept). */
    get uncertain() {
      return last.current !== null && inDoubt(last.current);
    },
  };
}
