import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer, deriveKey } from './sealed';

describe('sealed boxes', () => {
  const sealer = createSealer(deriveKey('a setting of at least thirty-two characters', 'messages'));

  it('opens what it sealed, and nothing of the plaintext shows in the box', () => {
    const value = { to: 'player@example.com', text: 'Ваш код подтверждения: 042917' };
    const box = sealer.seal(value, 'message.send');
    expect(sealer.open(box, 'message.send')).toEqual(value);
    expect(box).not.toContain('042917');
    expect(box).not.toContain('player');
  });

  it('pads: a short note and a longer message seal to the same length', () => {
    expect(sealer.seal(null, 'x').length).toBe(sealer.seal({ text: 'x'.repeat(300) }, 'x').length);
  });

  it('refuses another key, another purpose and an altered box', () => {
    const box = sealer.seal({ code: '123456' }, 'message.send');
    expect(() => createSealer(randomBytes(32)).open(box, 'message.send')).toThrow();
    expect(() => sealer.open(box, 'other')).toThrow();
    const parts = box.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0]! ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => sealer.open(parts.join('.'), 'message.send')).toThrow();
  });
});
