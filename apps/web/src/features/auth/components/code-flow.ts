import { CODE_TTL_MS } from '@adena/contract';
import { useCallback, useState } from 'react';
import { CODE_FLOW_PREFIX } from '../../../lib/code-flows';

/** A one-time-code flow under way: its token, the address the code went to, and when it was sent. */
export interface CodeFlow {
  token: string;
  sentTo: string;
  sentAt: number;
}

const storageKey = (name: string) => `${CODE_FLOW_PREFIX}${name}`;

function load(name: string): CodeFlow | null {
  try {
    const raw = sessionStorage.getItem(storageKey(name));
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<CodeFlow>;
    if (typeof v.token !== 'string' || typeof v.sentTo !== 'string' || typeof v.sentAt !== 'number') return null;
    // Past the code's life the flow is dead on the server too: the details form, not a code nobody can use.
    if (!(Date.now() - v.sentAt < CODE_TTL_MS)) return null;
    return { token: v.token, sentTo: v.sentTo, sentAt: v.sentAt };
  } catch {
    return null;
  }
}

function store(name: string, flow: CodeFlow | null) {
  try {
    if (flow) sessionStorage.setItem(storageKey(name), JSON.stringify(flow));
    else sessionStorage.removeItem(storageKey(name));
  } catch {
    // Storage refused (private mode): the flow lives as long as the page, as before.
  }
}

/**
 * The code step of sign-up or reset, kept in the tab's sessionStorage: a player who went to their
 * mail and came back to a reloaded page (a phone that dropped the tab, Telegram reopening the mini
 * app) or who stepped Back and Forward again finds the code field, not the details form, whose
 * «Получить код» would be refused for a minute (one code per address a minute). Gone with the tab,
 * after the code's 10 minutes, on success, on «Изменить данные» and at any sign-in or sign-out in the tab
 * (lib/session.ts).
 */
export function useCodeFlow(name: string) {
  const [flow, setState] = useState<CodeFlow | null>(() => load(name));
  const setFlow = useCallback(
    (next: CodeFlow | null | ((prev: CodeFlow | null) => CodeFlow | null)) => {
      setState((prev) => {
        const value = typeof next === 'function' ? next(prev) : next;
        store(name, value);
        return value;
      });
    },
    [name],
  );
  return [flow, setFlow] as const;
}
