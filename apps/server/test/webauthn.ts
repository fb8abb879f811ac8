import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A software authenticator for server tests: answers a registration with `fmt: "none"` and an
 * ES256 key, and an assertion signed by that key, as a platform authenticator with user
 * verification does. Browsers' own ceremony runs in Chromium's virtual authenticator (e2e).
 */

/** The few CBOR items a WebAuthn attestation needs: integers, byte and text strings, maps. */
function cbor(value: number | string | Uint8Array | Map<number | string, unknown>): Buffer {
  const head = (major: number, n: number) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts: Uint8Array[] = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v as Parameters<typeof cbor>[0]));
  return Buffer.concat(parts);
}

const b64url = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/**
 * `idBytes`: the credential id's length (16 by default; an authenticator may make one up to 1023 bytes, a forged one longer).
 * `keepsCounter: false`: every signature counts 0, as synced passkeys (most phones' and password managers') do.
 */
export function softAuthenticator(rp = { id: 'localhost', origin: 'http://localhost:3000' }, { idBytes = 16, keepsCounter = true } = {}) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const credentialId = randomBytes(idBytes);
  let counter = 0;
  let userHandle = '';
  const clientData = (type: string, challenge: string) => b64url(JSON.stringify({ type, challenge, origin: rp.origin, crossOrigin: false }));
  const count = () => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(counter);
    return b;
  };

  return {
    id: b64url(credentialId),
    /** The answer to `POST /passkeys/register/options`'s options. */
    register(options: { challenge: string; user?: { id?: string } }) {
      userHandle = options.user?.id ?? '';
      const cose = cbor(
        new Map<number, unknown>([
          [1, 2], // kty: EC2
          [3, -7], // alg: ES256
          [-1, 1], // crv: P-256
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      );
      const idLength = Buffer.from([credentialId.length >> 8, credentialId.length & 0xff]);
      // Flags: user present, user verified, attested credential data.
      const authData = Buffer.concat([sha256(rp.id), Buffer.from([0x45]), count(), Buffer.alloc(16), idLength, credentialId, cose]);
      const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        response: { clientDataJSON: clientData('webauthn.create', options.challenge), attestationObject: b64url(attestationObject), transports: ['internal'] },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
    /** The answer to `POST /passkeys/login/options`'s options. */
    assert(options: { challenge: string }) {
      if (keepsCounter) counter += 1;
      const authenticatorData = Buffer.concat([sha256(rp.id), Buffer.from([0x05]), count()]);
      const clientDataJSON = clientData('webauthn.get', options.challenge);
      const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(Buffer.from(clientDataJSON, 'base64url'))]), privateKey);
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        response: { clientDataJSON, authenticatorData: b64url(authenticatorData), signature: b64url(signature), userHandle },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
}
