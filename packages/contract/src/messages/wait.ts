/**
 * A wait in the words a person reads: «40 с», «15 мин», «2 ч», rounded up (Retry-After keeps the seconds).
 * The server's refusals count seconds below a minute; a live countdown (the resend button) shows seconds up to
 * `secondsUpTo`, so that it does not jump from «2 мин» to «60 с». `space` is a no-break space in the interface.
 */
export function waitText(seconds: number, options: { secondsUpTo?: number; space?: string } = {}): string {
  const { secondsUpTo = 59, space = ' ' } = options;
  const s = Math.max(1, Math.ceil(seconds));
  if (s <= secondsUpTo) return `${s}${space}с`;
  if (s < 3600) return `${Math.ceil(s / 60)}${space}мин`;
  return `${Math.ceil(s / 3600)}${space}ч`;
}
