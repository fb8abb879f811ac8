import { describe, expect, it } from 'vitest';
import { waitText } from './wait';

describe('waitText', () => {
  it('says seconds under a minute, then minutes and hours rounded up', () => {
    expect([1, 59.2, 60, 61, 3_599, 3_600, 3_601, 86_400].map((s) => waitText(s))).toEqual(['1 с', '1 мин', '1 мин', '2 мин', '60 мин', '1 ч', '2 ч', '24 ч']);
  });

  it('lets a countdown keep counting seconds, with a no-break space', () => {
    const countdown = (s: number) => waitText(s, { secondsUpTo: 90, space: '\u00a0' });
    expect([5, 90, 91, 3_599, 7_200].map(countdown)).toEqual(['5\u00a0с', '90\u00a0с', '2\u00a0мин', '60\u00a0мин', '2\u00a0ч']);
  });
});
