import { useEffect, useRef, useState } from 'react';

/**
 * After a refusal, focus goes to the first field that shows its error (`aria-invalid`), so a screen reader reads the
 * error with the field and the next key press fixes it. The submit button was disabled while the call ran and lost
 * focus; given back to the button, the error under a field above it went unheard (Chromium walk, 2026-11-29). Put
 * `ref` on the form and call `refused()` once its errors are set.
 */
export function useFocusFirstError<T extends HTMLElement = HTMLElement>() {
  const ref = useRef<T>(null);
  const [refusals, setRefusals] = useState(0);
  useEffect(() => {
    if (refusals > 0) ref.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refusals]);
  return { ref, refused: () => setRefusals((n) => n + 1) };
}
