import { SecondFactorCodeSchema, TWO_FACTOR_MESSAGES } from '@adena/contract';
import { useCallback, useRef, useState } from 'react';
import { latinKeys } from './keyboard-layout';

/**
 * A typed second-factor code, checked before it is sent: Russian-layout letters read as the QWERTY keys they sit on,
 * then the contract's rule (6 digits or a `xxxxx-xxxxx` recovery code). The code to send, or the Russian message
 * to show under the field: nothing is sent for a code that cannot be one (a header outside Latin-1 is not even built).
 */
export function readSecondFactorCode(typed: string): { code: string; error?: undefined } | { code?: undefined; error: string } {
  const parsed = SecondFactorCodeSchema.safeParse(latinKeys(typed));
  return parsed.success ? { code: parsed.data } : { error: parsed.error.issues[0]?.message ?? TWO_FACTOR_MESSAGES.code };
}

/**
 * A second-factor code field's state, for TwoFactorCodeField (`field`): what is typed, and why it cannot be sent,
 * shown under the field until the player types again. `read()` gives the code to send, or undefined with its
 * message shown; `refuse(message)` shows a refusal of the typed code; `clear()` empties both; `focus()` puts the
 * cursor back in the field (after a wrong code: the press of «Оплатить» took it, and autoFocus works only once).
 */
export function useCodeField() {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const focus = useCallback(() => inputRef.current?.focus(), []);
  return {
    code,
    field: {
      value: code,
      error,
      inputRef,
      onChange: (typed: string) => {
        setCode(typed);
        setError(null);
      },
    },
    read(): string | undefined {
      const read = readSecondFactorCode(code);
      setError(read.error ?? null);
      return read.code;
    },
    refuse: (message: string) => setError(message),
    clear() {
      setCode('');
      setError(null);
    },
    focus,
  };
}
