import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id; the package's const enum can't be imported under verbatimModuleSyntax.
const ARGON2ID = 2;

// argon2id with OWASP's second recommended profile (19 MiB, 2 passes): memory-hard against offline guessing, yet cheap enough for every sign-in.
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, OPTIONS);

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) {
    // Spend the same time as a real check so an unknown login is not told apart by timing.
    await hash(password, OPTIONS);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
