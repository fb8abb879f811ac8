import { SecondFactorCodeSchema, TWO_FACTOR_MESSAGES } from '@adena/contract';
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
