import type { AdminRequest } from '@adena/contract';
import { describe, expect, it } from 'vitest';
import { minutesSince, minutesText } from '../../../hooks/use-minutes-since';
import { completeQuestion, queueOrderText, claimLapseText } from './queue-texts';

const request = (patch: Partial<AdminRequest>) =>
  ({ type: 'input', amount: 1, currency_type: 1, nick: 'Hero', cashier_nick: 'AdenaKassa2', gamesserver: 'Scryde x50', ...patch }) as AdminRequest;

describe('the operator’s «Выполнить заявку?» question', () => {
  it.each([
    [request({ currency_type: 2, amount: 301 }), 'Кассир AdenaKassa2 получил 301\u00a0монету эйнхасад от Hero на Scryde x50: баланс игрока пополнится.'],
    [request({ currency_type: 2, amount: 2 }), 'Кассир AdenaKassa2 получил 2\u00a0монеты эйнхасад от Hero на Scryde x50: баланс игрока пополнится.'],
    [request({ currency_type: 1, amount: 1_000_001 }), 'Кассир AdenaKassa2 получил 1\u00a0000\u00a0001\u00a0адену от Hero на Scryde x50: баланс игрока пополнится.'],
    [request({ currency_type: 1, amount: 5_000_000 }), 'Кассир AdenaKassa2 получил 5\u00a0000\u00a0000\u00a0аден от Hero на Scryde x50: баланс игрока пополнится.'],
    [request({ type: 'output', currency_type: 2, amount: 1 }), 'Вы передали персонажу Hero на Scryde x50 1\u00a0монету эйнхасад: удержанная сумма спишется.'],
    [request({ type: 'output', currency_type: 1, amount: 21 }), 'Вы передали персонажу Hero на Scryde x50 21\u00a0адену: удержанная сумма спишется.'],
  ])('%# puts the amount in the accusative', (r, text) => expect(completeQuestion(r)).toBe(text));
});

describe('the queue’s caption says the order the server lists it in', () => {
  it('pending: VIP withdrawals first; decided: newest first; all: pending first, then decided newest first', () => {
    expect(queueOrderText('pending')).toBe('Сначала выводы VIP, затем по времени создания.');
    expect(queueOrderText('completed')).toBe('Сначала новые.');
    expect(queueOrderText(undefined)).toBe('Сначала ожидающие (выводы VIP, затем по времени создания), потом обработанные — новые выше.');
  });
});

describe('minutes a request has waited', () => {
  it('counts whole minutes, as the dashboard’s «Дольше всех ждёт» does: 9 min 59 s is 9, not 10', () => {
    const created = '2026-11-01T10:00:00.000Z';
    const at = (s: number) => new Date(created).getTime() + s * 1000;
    expect(minutesSince(created, at(599))).toBe(9);
    expect(minutesSince(created, at(600))).toBe(10);
    expect(minutesSince(created, at(-30))).toBe(0);
  });

  it('says «меньше минуты» under a minute, not «0 мин», then minutes, hours and days, as the queue and the dashboard both say them', () => {
    expect(minutesText(0)).toBe('меньше минуты');
    // Each unit held to its number by a no-break space; days abbreviated with a stop, «дн.».
    expect(minutesText(1)).toBe('1\u00a0мин');
    expect(minutesText(59)).toBe('59\u00a0мин');
    expect(minutesText(125)).toBe('2\u00a0ч 5\u00a0мин');
    expect(minutesText(3 * 24 * 60 + 4 * 60)).toBe('3\u00a0дн. 4\u00a0ч');
  });
});

describe('the line under another operator’s claim', () => {
  it('says the moment the claim lapses on this clock, and how old the claim is', () => {
    const lapses = new Date(2026, 10, 1, 10, 24).toISOString();
    expect(claimLapseText(lapses, 3)).toBe(
      'Взять себе можно с 10:24, если захват не продлят. Взята или продлена 3\u00a0мин назад.',
    );
    expect(claimLapseText(lapses, 0)).toContain('Взята или продлена только что.');
  });
});
