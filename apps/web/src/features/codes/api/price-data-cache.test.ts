import type { AuthPriceData, Code, PriceData } from '@adena/contract';
import { describe, expect, it } from 'vitest';
import { codeEntry, mergedCodes, withCode, withCodeStatus, withoutCode, withWalletBalance } from './price-data-cache';

const code = (id: number, created_at: string, extra: Partial<Code> = {}): Code => ({
  id,
  nominal: 1_000_000,
  price: 1_010_000,
  status: 'active',
  sert: `ADN-${id}`,
  gamesserver_id: 1,
  pricekod_id: null,
  created_at,
  activated_at: null,
  ...extra,
});

const anon: PriceData = {
  id: 1,
  gamesserver: { id: 1, name: 'Scryde x50' },
  kods: [],
  pricekods: [],
  svoy_variant_kods: [],
  standard_nominals: [{ nominal: 1_000_000, price: 1_010_000 }],
  code_fee_bp: 100,
  min_nominal: 100_000,
};

describe('the codes rules of SPEC.md section 4 over price data', () => {
  it('merges svoy_variant_kods into kods, newest first, each code once', () => {
    const d = {
      ...anon,
      kods: [code(1, '2026-11-01T10:00:00Z'), code(3, '2026-11-01T12:00:00Z')],
      svoy_variant_kods: [code(2, '2026-11-01T11:00:00Z', { pricekod_id: 4 }), code(3, '2026-11-01T12:00:00Z')],
    };
    expect(mergedCodes(d).map((c) => c.id)).toEqual([3, 2, 1]);
  });

  it('showing a code sets its sert and status on the listed entry rather than adding a second', () => {
    const d = { ...anon, kods: [code(1, '2026-11-01T10:00:00Z', { sert: '', status: 'cancelled' })] };
    const next = withCode(d, codeEntry(d, { id: 1, nominal: 1_000_000, sert: 'ADN-REVEALED', status: 'active' }));
    expect(next.kods).toHaveLength(1);
    expect(next.kods[0]).toMatchObject({ sert: 'ADN-REVEALED', status: 'active' });
  });

  it("a TOTP player's masked sert event never hides the whole text the issuing call's answer brought; a whole one replaces a masked one", () => {
    const masked = 'ADN-7KQ2-****-****-H3RC';
    const whole = 'ADN-7KQ2-M9XD-4TPW-H3RC';
    const d = { ...anon, kods: [code(1, '2026-11-01T10:00:00Z', { sert: whole })] };
    // The answer came first, then the event.
    const afterEvent = withCode(d, codeEntry(d, { id: 1, nominal: 1_000_000, sert: masked, sert_masked: true }));
    expect(afterEvent.kods).toEqual([expect.objectContaining({ sert: whole })]);
    expect(afterEvent.kods[0]!.sert_masked).toBeFalsy();
    // The event came first (a new masked entry), then the answer.
    const fromEvent = withCode(anon, codeEntry(anon, { id: 2, nominal: 1_000_000, sert: masked, sert_masked: true }));
    expect(fromEvent.kods[0]).toMatchObject({ sert: masked, sert_masked: true });
    const afterAnswer = withCode(fromEvent, codeEntry(fromEvent, { id: 2, nominal: 1_000_000, sert: whole, status: 'active' }));
    expect(afterAnswer.kods).toHaveLength(1);
    expect(afterAnswer.kods[0]!.sert).toBe(whole);
    expect(afterAnswer.kods[0]!.sert_masked).toBeFalsy();
  });

  it('a new entry takes its price from the standard nominal or the variant', () => {
    const d = { ...anon, pricekods: [{ id: 4, gamesserver_id: 1, nominal: 2_000_000, price: 2_020_000, count: 1, open_count: 1, created_at: '' }] };
    expect(codeEntry(d, { id: 1, nominal: 1_000_000, sert: 'A' }).price).toBe(1_010_000);
    expect(codeEntry(d, { id: 2, nominal: 2_000_000, sert: 'B', pricekod_id: 4 }).price).toBe(2_020_000);
  });

  it('a batch code that stops being open leaves its open_count once, so an edit starts from the codes still open', () => {
    const batch = { id: 4, gamesserver_id: 1, nominal: 2_000_000, price: 2_020_000, count: 3, open_count: 3, created_at: '' };
    const d = {
      ...anon,
      pricekods: [batch],
      svoy_variant_kods: [1, 2, 3].map((id) => code(id, '2026-11-01T10:00:00Z', { pricekod_id: 4, nominal: 2_000_000 })),
    };
    const activated = withCodeStatus(d, 1, 'activated');
    expect(activated.pricekods[0]!.open_count).toBe(2);
    // The same event twice (the answer and the realtime event) counts once.
    expect(withCodeStatus(activated, 1, 'activated').pricekods[0]!.open_count).toBe(2);
    const removed = withoutCode(activated, 2);
    expect(removed.pricekods[0]!.open_count).toBe(1);
    // A code outside any batch, or one no longer open, changes no count.
    expect(withoutCode(removed, 1).pricekods[0]!.open_count).toBe(1);
    expect(withCodeStatus({ ...anon, kods: [code(9, '2026-11-01T10:00:00Z')], pricekods: [batch] }, 9, 'activated').pricekods[0]!.open_count).toBe(3);
  });

  it('anonymous price data has no wallet or user code to change', () => {
    expect(withWalletBalance(anon, 5)).toBe(anon);
    expect(withCodeStatus(anon, 1, 'activated')).toEqual(anon);
    const auth = { ...anon, wallet: { id: 1, balance: 1, balance_second: 2 } } as AuthPriceData;
    expect((withWalletBalance(auth, 5) as AuthPriceData).wallet).toEqual({ id: 1, balance: 5, balance_second: 2 });
  });
});
