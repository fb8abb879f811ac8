import { navigate as browserNavigate, usePathname } from 'wouter/use-browser-location';

/**
 * The position of the current entry among those the app pushed: 0 where the app was opened.
 * Each navigation stores it in history.state (as React Router did), so Telegram's back button
 * can tell a step back inside the app from leaving it.
 */
export const historyIndex = () => (window.history.state as { idx?: number } | null)?.idx ?? 0;

function navigate(to: string | URL, opts?: { replace?: boolean }) {
  browserNavigate(to, { replace: opts?.replace, state: { idx: historyIndex() + (opts?.replace ? 0 : 1) } });
}

/** wouter's browser location, with every pushed entry numbered. */
export const useIndexedLocation = (opts?: { ssrPath?: string }): [string, typeof navigate] => [usePathname(opts), navigate];
