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

  it('names the service’s accounts by their game server’s name when the server list is at hand', () => {
    // Walk finding: «Коды (депонент), сервер 1 · адена», «Комиссии, сервер 1» where the code's card says «Scryde x50».
    const servers = [
      { id: 1, name: 'Scryde x50' },
      { id: 12, name: 'Asterios x5' },
    ];
    expect(accountKeyLabel('fees:1:1', servers)).toBe('Комиссии · Scryde x50 · адена');
    expect(accountKeyLabel('escrow:1:1', servers)).toBe('Коды (депонент) · Scryde x50 · адена');
    expect(accountKeyLabel('cash:12:2', servers)).toBe('Касса · Asterios x5 · монеты');
    // A server not (yet) in the list: by its number; a wallet's number is the wallet's, never a server's.
    expect(accountKeyLabel('payout:2:1', servers)).toBe('Удержано на вывод, сервер 2 · адена');
    expect(accountKeyLabel('wallet:1:1', servers)).toBe('Кошелёк №1 · адена');
  });
});
