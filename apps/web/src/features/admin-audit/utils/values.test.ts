import { describe, expect, it } from 'vitest';
import { auditValue, operatorIdsIn, operatorNames } from './values';

const plain = (s: string) => s.replace(/\u00a0/g, ' ');
const KK = 1_000_000;

describe('a value in the audit log', () => {
  it('writes a game server’s limits as its settings do, not as JSON', () => {
    // Review finding: limits showed as {"input":{"1":{"min":1000000,…}}}.
    const limits = {
      input: { '1': { min: KK, max: 10_000 * KK }, '2': { min: 1, max: 100_000 } },
      output: { '1': { min: 5 * KK, max: 1_500 * KK }, '2': { min: 10, max: 50_000 } },
    };
    expect(plain(auditValue('gamesserver', 'limits', limits))).toBe(
      'Пополнение, адена: 1кк–10ккк; Пополнение, монеты: 1–100 000; Вывод, адена: 5кк–1,5ккк; Вывод, монеты: 10–50 000',
    );
  });

  it('lists nominals in shorthand and says amounts grouped, adena with its unit', () => {
    // Review finding: «[1000000,5000000]» and «Возвращено: 1010000».
    expect(auditValue('gamesserver', 'standard_nominals', [KK, 5 * KK])).toBe('1кк, 5кк');
    expect(auditValue('gamesserver', 'standard_nominals', [])).toBe('—');
    expect(plain(auditValue('code', 'refunded', '1010000'))).toBe('1 010 000 аден');
    expect(plain(auditValue('code', 'refunded', '150001'))).toBe('150 001 адена');
    expect(plain(auditValue('gamesserver', 'min_nominal', 500_000))).toBe('500 000 аден');
    expect(plain(auditValue('balance_request', 'amount', '2500000'))).toBe('2 500 000');
    expect(plain(auditValue('gamesserver', 'vip_price', 1200))).toBe('1 200');
  });

  it('keeps a readable fallback for a shape it does not know: no raw JSON', () => {
    expect(auditValue('user', 'something', { a: 1, b: [true, 'x'] })).toBe('a: 1; b: да, x');
    expect(auditValue('user', 'limits', 'odd')).toBe('odd');
    expect(auditValue('user', 'id', 12345)).toBe('12345');
    expect(auditValue('code', 'status', 'cancelled')).toBe('отменён');
    expect(auditValue('user', 'blocked_at', null)).toBe('—');
  });

  it('names the operator a request’s claim or decision holds by id, «оператор №id» when the name is not known', () => {
    // Review finding: «Обработал: — → 1», «В работе у: 1».
    const names = operatorNames(
      [{ admin_id: 1, admin_name: 'Анна', admin_email: null }, { admin_id: 4, admin_name: '', admin_email: 'op4@example.com' }],
      [{ id: 2, name: 'Борис', email: null }, { id: 1, name: 'Анна старое имя', email: null }],
    );
    expect(auditValue('balance_request', 'processed_by', 1, names)).toBe('Анна');
    expect(auditValue('balance_request', 'claimed_by', 2, names)).toBe('Борис');
    expect(auditValue('balance_request', 'claimed_by', 4, names)).toBe('op4@example.com');
    expect(auditValue('balance_request', 'claim_dropped_by', '3', names)).toBe('оператор №3');
    expect(auditValue('balance_request', 'processed_by', 1)).toBe('оператор №1');
    expect(auditValue('balance_request', 'processed_by', null, names)).toBe('—');
    // Other numbers stay numbers.
    expect(auditValue('code', 'wallet_id', 1, names)).toBe('1');
  });

  it('finds every operator id an entry holds, before and after', () => {
    expect(
      operatorIdsIn([
        { before: { status: 'pending', processed_by: null }, after: { status: 'completed', processed_by: 1 } },
        { before: { claimed_by: 2, claimed_at: '2026-11-01T12:00:00Z' }, after: { claimed_by: null, claimed_at: null, claim_dropped_by: 2 } },
        { before: null, after: { claimed_by: 3 } },
        { before: null, after: { note: 'x', wallet_id: 9 } },
      ]).sort(),
    ).toEqual([1, 2, 3]);
  });
});
