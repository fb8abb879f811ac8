import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/** Plaintexts are padded to a multiple of this, so a sealed note and a sealed code look alike in size. */
const BLOCK = 512;

/**
 * AES-256-GCM with a fresh 12-byte nonce per message: `v1.<nonce>.<tag>.<ciphertext>` (base64url).
 * `aad` binds a box to its use (a box sealed for one purpose does not open for another).
 */
export interface Sealer {
  seal(value: unknown, aad: string): string;
  /** Throws when the box was not sealed with this key and aad, or was altered. */
  open(box: string, aad: string): unknown;
}

/** A 32-byte key from a setting of any length ≥ 32 (HKDF-SHA256), or from 32 raw bytes. */
export function deriveKey(secret: string | Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'adena-wallet', purpose, 32));
}

export function createSealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new Error('an AES-256 key is 32 bytes');
  return {
    seal(value, aad) {
      const json = Buffer.from(JSON.stringify(value ?? null), 'utf8');
      const padded = Buffer.alloc(Math.ceil((json.length + 1) / BLOCK) * BLOCK, 0x20);
      json.copy(padded);
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(padded), cipher.final()]);
      return [VERSION, nonce, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open(box, aad) {
      const [version, nonce, tag, body] = box.split('.');
      if (version !== VERSION || !nonce || !tag || body === undefined) throw new Error('not a sealed box');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
      return JSON.parse(plain.toString('utf8'));
    },
  };
}
