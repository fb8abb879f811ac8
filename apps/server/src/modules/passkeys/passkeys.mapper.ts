import type { Passkey } from '@adena/contract';

/** A passkey as the profile lists it: never the credential id or public key. */
export const toPasskey = (p: { id: number; name: string; created_at: Date }): Passkey => ({
  id: p.id,
  name: p.name,
  created_at: p.created_at.toISOString(),
});
