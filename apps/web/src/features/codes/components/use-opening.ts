import { useEffect, useRef } from 'react';
import { useUi } from '../../../lib/ui-store';

/**
 * For a dialog's late answer: `begin()` at submit notes the opening (the dialog state object then) and
 * returns whether that same opening is still on screen here. The name alone is not enough: the same
 * dialog closed and opened again, or left open while the player switched server (this codes tab
 * unmounts and the next server's renders it), is another opening, and an answer about this one must
 * not close it, fill it or open a dialog over it for the wrong server.
 */
export function useOpening() {
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  return () => {
    const opening = useUi.getState().dialog;
    return () => mounted.current && useUi.getState().dialog === opening;
  };
}
