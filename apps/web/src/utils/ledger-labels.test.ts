import { describe, expect, it } from 'vitest';
import { accountKeyLabel } from './ledger-labels';

describe('a ledger account’s key in words', () => {
  it('names a wallet by the wallet’s own number, not as a player’s', () => {
    expect(accountKeyLabel('wallet:13:1')).toBe('Кошелёк №13 · адена');
    expect(accountKeyLabel('wallet:13:2')).toBe('Кошелёк №13 · монеты');
  });

  it('names the service’s accounts by their game server', () => {
    expect(accountKeyLabel('cash:1:2')).toBe('Касса, сервер 1 · монеты');
    expect(accountKeyLabel('escrow:3:1')).toBe('Коды (депонент), сервер 3 · адена');
    expect(accountKeyLabel('something:1')).toBe('something:1');
  });
});
