import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';

/** How long a call may run while its control waits to be taken away or given back; after the answer, the longest wait. */
const PENDING_MS = 30_000;
/**
 * After the answer: how long the list may take to show it. A dialog holding focus (an alert the failure opened, one
 * still closing) extends it, and so does, after a success, its control still on show (the list is read again after
 * the answer, and that read may be slow): up to PENDING_MS after the answer.
 */
const SETTLE_MS = 3_000;
/**
 * After a failure: a control disabled while its call ran is enabled again as soon as the page shows the answer. One
 * still disabled this long after it is disabled for another reason (another operator took the request) and, focus
 * having no place on it, counts as gone.
 */
const ENABLE_MS = 250;

interface Watch {
  key: string;
  /** The control that started the action, and the one to land on in the rows around it (the same, or what replaces it). */
  from: string;
  to: string;
  /**
   * The group's rows in the order last shown with this one still holding its control (a live list re-sorts). Not read
   * once the control has gone: a decided row may move (pending requests, open codes are listed first).
   */
  order: string[];
  /** What held the rows as the action started: the last place for focus when nothing else is left. */
  holder: HTMLElement | null;
  /** The action failed: its control stays, and focus lost meanwhile goes back to it. */
  back: boolean;
  /** When the answer came (back or done), and how long a dialog or a success's control still on show is waited for. */
  answered: number;
  until: number;
  /** The control as focus has been on it since the answer: focus lost from it after that, while it stays, is the user's doing (a click on a blank). */
  given: HTMLElement | null;
  timer?: ReturnType<typeof setTimeout>;
  recheck?: ReturnType<typeof setTimeout>;
  /**
   * ENABLE_MS have passed since the failure's answer: set by the recheck's timer itself. Not read from the clock: a
   * timer may fire a millisecond before Date.now() says its time has come (Node's loop time lags), and the recheck
   * then found the control not yet stuck, with nothing to look again until SETTLE_MS.
   */
  enableDue?: boolean;
}

export interface FocusSpot {
  /** The action succeeded: its control leaves; the watch ends soon after. */
  done(): void;
  /** The action failed: its control stays, and focus lost meanwhile goes back to it. */
  back(): void;
}

const rowsOf = (group: string) => {
  const rows = new Map<string, HTMLElement>();
  for (const el of document.querySelectorAll<HTMLElement>(`[data-focus-row="${group}"]`)) rows.set(el.dataset.focusKey ?? '', el);
  return rows;
};
const control = (row: HTMLElement | undefined, action: string) => row?.querySelector<HTMLElement>(`[data-focus-action="${action}"]`) ?? null;
const enabled = (el: HTMLElement) => !(el as HTMLButtonElement).disabled && el.getAttribute('aria-disabled') !== 'true';
const FOCUSABLE = 'button:not(:disabled), a[href], input:not(:disabled), [tabindex]:not([tabindex="-1"])';

/**
 * Where focus is: `lost` on <body> (or on an element removed or disabled since, which Chromium drops to <body>), held
 * by a `dialog` (one open, or one closing that keeps it until it leaves the page), or `held` where the user put it.
 */
function focusState(): 'lost' | 'dialog' | 'held' {
  const a = document.activeElement as HTMLElement | null;
  if (!a || a === document.body || !a.isConnected || (a as HTMLButtonElement).disabled === true) return 'lost';
  return a.closest('.MuiModal-root, [role="dialog"]') ? 'dialog' : 'held';
}

/**
 * Where focus goes when an action takes away the control that started it: a session ended, a request decided, a
 * code cancelled, an entry hidden. Its row leaves the list (or stays without the control), the browser drops focus
 * to <body>, and a keyboard or screen-reader user would start again from the top of the page.
 *
 * A list marks its rows `data-focus-row={group}` with `data-focus-key={key}`, their controls
 * `data-focus-action={action}`, and, optionally, itself or what says it is empty `data-focus-list={group}`
 * (with tabIndex -1). The function returned is called as an action starts: `from(key, action)`. Once that row's
 * control has gone and focus has been lost, focus goes to the same control (`to`, when another takes its place) of
 * the next row, or the previous one when it was the last (rows without one are passed over); else to the next row's
 * first control; else to `fallback()`, the group's `data-focus-list`, or what held the rows. `back()` (the action
 * failed) returns focus lost meanwhile to the control: a button disabled while its call runs loses it in Chromium;
 * the control is watched on while the list settles, and one left disabled (another operator took the request) or
 * removed by then counts as gone, as it does at the watch's end. After `done()` the watch lasts while the control is
 * still on show (its list read again after the answer). Focus the user has put anywhere else is never taken, and
 * nothing moves while `busy` (the call runs, the list's dialog is open).
 */
export function useFocusAfterRemoval(group: string, opts: { busy?: boolean; fallback?: () => HTMLElement | null } = {}) {
  const busy = useRef(false);
  const fallback = useRef(opts.fallback);
  useLayoutEffect(() => {
    busy.current = opts.busy ?? false;
    fallback.current = opts.fallback;
  });
  const watch = useRef<Watch | null>(null);
  const observer = useRef<MutationObserver | null>(null);

  const stop = useCallback(() => {
    clearTimeout(watch.current?.timer);
    clearTimeout(watch.current?.recheck);
    watch.current = null;
    observer.current?.disconnect();
    observer.current = null;
  }, []);

  const successor = useCallback(
    (w: Watch, rows: Map<string, HTMLElement>) => {
      const at = w.order.indexOf(w.key);
      const near = [...w.order.slice(at + 1), ...w.order.slice(0, Math.max(at, 0)).reverse()]
        .filter((k) => k !== w.key && rows.has(k))
        .map((k) => rows.get(k) as HTMLElement);
      const own = rows.get(w.key);
      for (const row of own ? [own, ...near] : near) {
        const c = control(row, w.to);
        if (c && enabled(c)) return c;
      }
      for (const row of near) {
        const c = row.querySelector<HTMLElement>(FOCUSABLE);
        if (c) return c;
      }
      const last = fallback.current?.() ?? document.querySelector<HTMLElement>(`[data-focus-list="${group}"]`) ?? (w.holder?.isConnected ? w.holder : null);
      if (last && !last.hasAttribute('tabindex')) last.setAttribute('tabindex', '-1');
      return last;
    },
    [group],
  );

  const check = useCallback(
    (final = false) => {
      const w = watch.current;
      if (!w || (busy.current && !final)) return;
      const rows = rowsOf(group);
      const own = control(rows.get(w.key), w.from);
      if (own) w.order = [...rows.keys()];
      const focus = focusState();
      // Left disabled once the answer is shown (the card of a request another operator took), or at the watch's end:
      // focus has no place on it (Chromium drops it to <body>, MUI's restoring it to the button does nothing).
      const stuck = own !== null && !enabled(own) && (final || (w.back && w.enableDue === true));
      if (own && !stuck) {
        // Its answer has not reached the list yet.
        if (!w.back && !final) return;
        // Disabled while its call ran: enabled again as the page shows the answer.
        if (!enabled(own)) return;
        if (document.activeElement === own) w.given = own;
        else if (focus === 'held') return stop();
        else if (focus === 'lost') {
          // Lost while its call ran (or with the control another took the place of): it comes back. Lost from this very
          // control once it was back: the user's doing, left alone.
          if (w.given === own) return stop();
          own.focus();
          w.given = own;
        }
        // Watched on while the list settles: a re-read may yet disable or remove it.
        if (final) stop();
        return;
      }
      if (focus === 'held') return stop();
      if (focus === 'dialog') return final ? stop() : undefined;
      successor(w, rows)?.focus();
      stop();
    },
    [group, stop, successor],
  );

  // Each render may be the one that ends the call, closes the dialog or removes the row.
  useEffect(() => {
    if (watch.current) check();
  });
  useEffect(() => stop, [stop]);

  return useCallback(
    (key: string | number, action: string, to: string = action): FocusSpot => {
      stop();
      const rows = rowsOf(group);
      const now = Date.now();
      const holder = rows.get(String(key))?.parentElement ?? null;
      const w: Watch = { key: String(key), from: action, to, order: [...rows.keys()], holder, back: false, answered: now, until: now + PENDING_MS, given: null };
      watch.current = w;
      const arm = (ms: number) => {
        clearTimeout(w.timer);
        w.timer = setTimeout(() => {
          if (watch.current !== w) return;
          // An alert the failure opened, or a dialog still closing, holds focus; or, after a success, the list has not
          // shown it yet (read again after the answer, and slowly): waited for a while longer.
          const unshown = !w.back && control(rowsOf(group).get(w.key), w.from) !== null;
          if ((focusState() === 'dialog' || unshown) && Date.now() < w.until) arm(SETTLE_MS);
          else check(true);
        }, ms);
      };
      arm(PENDING_MS);
      // The row's removal, a control enabled again, a closing dialog leaving the page: none needs this list to render.
      observer.current = new MutationObserver(() => check());
      observer.current.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
      const settle = (back: boolean) => {
        if (watch.current !== w) return;
        w.back = back;
        w.answered = Date.now();
        w.until = w.answered + PENDING_MS;
        arm(SETTLE_MS);
        // A control still disabled by then is disabled for another reason: looked at again, with nothing else changing.
        clearTimeout(w.recheck);
        w.enableDue = false;
        if (back)
          w.recheck = setTimeout(() => {
            w.enableDue = true;
            if (watch.current === w) check();
          }, ENABLE_MS);
        check();
      };
      return { done: () => settle(false), back: () => settle(true) };
    },
    [group, stop, check],
  );
}
