import { waitText } from '@adena/contract';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, fieldError } from '../../lib/app-error';
import { smsRefusal } from '../notifications/sms-numbers';
import { type RateLimiter, type RateRule, tooMany } from '../sessions/rate-limit.service';

/** The countries SMS_COUNTRIES may name that a player reads in Russian, in the genitive («номер России»). */
const CIS_GENITIVE: Readonly<Record<string, string>> = {
  RU: 'России',
  KZ: 'Казахстана',
  BY: 'Беларуси',
  UA: 'Украины',
  AM: 'Армении',
  AZ: 'Азербайджана',
  GE: 'Грузии',
  KG: 'Киргизии',
  MD: 'Молдовы',
  TJ: 'Таджикистана',
  UZ: 'Узбекистана',
  TM: 'Туркменистана',
};

/** «нужен мобильный номер России или стран СНГ», said of the setting. */
function wantedNumber(countries: ReadonlySet<string> | null) {
  if (!countries) return 'нужен мобильный номер';
  const codes = [...countries];
  if (codes.every((c) => c in CIS_GENITIVE)) {
    if (codes.length <= 3) {
      const names = codes.map((c) => CIS_GENITIVE[c]!);
      return `нужен мобильный номер ${names.length > 1 ? `${names.slice(0, -1).join(', ')} или ${names.at(-1)}` : names[0]}`;
    }
    return `нужен мобильный номер ${countries.has('RU') ? 'России или стран СНГ' : 'одной из стран СНГ'}`;
  }
  return `нужен мобильный номер одной из стран: ${codes.join(', ')}`;
}

const HOUR_MS = 60 * 60_000;
const BUDGET_KEY = 'sms:signup';

export interface SmsRulesDeps {
  limiter: RateLimiter;
  log: FastifyBaseLogger;
  /** SMS_COUNTRIES: null for any country. */
  countries: ReadonlySet<string> | null;
  /** SMS_SIGNUP_PER_HOUR, SMS_SIGNUP_PER_DAY. */
  perHour: number;
  perDay: number;
}

/**
 * Toll fraud (SMS pumping; README "Security"): who scripts sign-ups to numbers he earns from must not
 * run up our SMS bill. A sign-up SMS goes only to a mobile of an allowed country, and all of them
 * together (codes, resends, the note to a registered number: the answers must not differ) stay within a
 * budget an hour and a day shared by every process. A reset goes to a number already confirmed on an
 * account, of any country (a player who moved keeps it), and is never held back by the budget, so that
 * pumping cannot stop owners recovering their accounts; it must still be a mobile (premium-rate and
 * satellite numbers confirmed before this rule would otherwise pump through resets, one a minute each).
 */
export function createSmsRules(deps: SmsRulesDeps) {
  const { limiter, log, countries } = deps;
  const signUpRefusal = `На этот номер мы не отправляем SMS: ${wantedNumber(countries)}`;
  const resetRefusal = `На этот номер мы не отправляем SMS: ${wantedNumber(null)}`;
  const budgets: Array<{ name: 'hour' | 'day'; setting: string; rule: RateRule }> = [
    { name: 'hour', setting: 'SMS_SIGNUP_PER_HOUR', rule: { limit: deps.perHour, windowMs: HOUR_MS } },
    { name: 'day', setting: 'SMS_SIGNUP_PER_DAY', rule: { limit: deps.perDay, windowMs: 24 * HOUR_MS } },
  ];

  async function spent(budget: (typeof budgets)[number], err: AppError): Promise<never> {
    // Said once per spent window of the budget, over all processes (keyed by that window's start: a marker with a
    // window of its own, opened at the first refusal, outlived the budget's window and kept the next one silent);
    // the log holds no number and no code.
    const start = await limiter.windowStart(`${BUDGET_KEY}:${budget.name}`);
    if (await limiter.firstInWindow(`${BUDGET_KEY}:${budget.name}:warned:${start?.getTime() ?? 0}`, budget.rule.windowMs)) {
      log.warn({ window: budget.name, limit: budget.rule.limit }, `sign-up SMS budget spent (${budget.setting}): phone sign-ups are refused until the window ends`);
    }
    const s = err.options.retryAfter ?? 60;
    throw tooMany(s, `Сейчас мы не можем отправить SMS для регистрации. Зарегистрируйтесь по почте или попробуйте через ${waitText(s)}`);
  }

  return {
    /** Sign-up (a new flow or a resend): a 422 under `phone` unless a mobile of an allowed country. */
    signUpRefusal: (phone: string) => (smsRefusal(phone, countries) ? fieldError('phone', signUpRefusal) : null),
    /** Reset: a 422 under `phone` unless a mobile of any country; decided by the number alone, never by an account. */
    resetRefusal: (phone: string) => (smsRefusal(phone, null) ? fieldError('phone', resetRefusal) : null),
    /** One SMS of the sign-up budget: 429 once the hour's or the day's is spent; `giveBack` when it is not sent after all. */
    async takeSignUpSms() {
      const taken: Array<{ giveBack(): Promise<void> }> = [];
      const giveBack = async () => {
        for (const t of taken.splice(0)) await t.giveBack();
      };
      for (const budget of budgets) {
        try {
          taken.push(await limiter.take([[`${BUDGET_KEY}:${budget.name}`, budget.rule]]));
        } catch (err) {
          await giveBack();
          if (err instanceof AppError && err.code === 'TOO_MANY_ATTEMPTS') await spent(budget, err);
          throw err;
        }
      }
      return { giveBack };
    },
  };
}

export type SmsRules = ReturnType<typeof createSmsRules>;
