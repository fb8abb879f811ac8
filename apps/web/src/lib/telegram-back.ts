import { useEffect, useRef, useSyncExternalStore } from 'react';

/**
 * The dialogs on screen, the newest last, for Telegram's back button. A full-screen dialog on the
 * root looks like a page to the player: Telegram's «Закрыть» there (or Android's back key) would
 * close the mini app and lose a half-filled form. So while one is open the back button shows and
 * closes the top one through its own onClose, which knows what to keep (a money form's fields and
 * key after a lost answer) and what to renew.
 */
const stack: Array<{ close(): void }> = [];
const listeners = new Set<() => void>();
const changed = () => {
  for (const l of listeners) l();
};

/** Puts the dialog on the stack while `open`; its latest onClose is the one called. */
export function useBackClosesDialog(open: boolean, onClose: () => void) {
  const latest = useRef(onClose);
  latest.current = onClose;
  useEffect(() => {
    if (!open) return;
    // Pushed once per opening, so a dialog opened over another (the second factor over a purchase) is on top.
    const entry = { close: () => latest.current() };
    stack.push(entry);
    changed();
    return () => {
      stack.splice(stack.indexOf(entry), 1);
      changed();
    };
  }, [open]);
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => void listeners.delete(l);
};

/** True while any dialog is open. */
export const useDialogOpen = () => useSyncExternalStore(subscribe, () => stack.length > 0);

/** Closes the top dialog as its own close button would; false when none is open. */
export function closeTopDialog(): boolean {
  const top = stack.at(-1);
  top?.close();
  return top !== undefined;
}

/**
 * The fields holding typed text not yet sent (a gift code, a nick being changed), for Telegram's closing
 * confirmation: a swipe down or its «Закрыть» would lose them as surely as a half-filled dialog.
 */
const unsaved = new Set<object>();

/** Counts this field as unsaved while `dirty` (typed, not yet sent); Telegram then asks before closing the mini app. */
export function useUnsavedInput(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const entry = {};
    unsaved.add(entry);
    changed();
    return () => {
      unsaved.delete(entry);
      changed();
    };
  }, [dirty]);
}

/** True while any field holds unsaved text. */
export const useUnsavedInputs = () => useSyncExternalStore(subscribe, () => unsaved.size > 0);
