/** An SMS gateway: one real HTTP one (SMS.ru); without it, messages go to the outbox. */
export interface SmsGateway {
  sendSms(to: string, text: string): Promise<void>;
}

/** A refusal; `permanent` when asking again will not help (a 4xx, a number the gateway will not serve). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent = false,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** SMS.ru's own codes for "try again later": 220 service unavailable, 500 server error. */
const TRANSIENT_SMS_RU = new Set([220, 500]);

/**
 * SMS.ru's HTTP API: POST /sms/send with api_id, to (digits only), msg and json=1. It answers
 * 200 even when it refuses, so the status of the whole call and of the one number are checked.
 */
export function createSmsRuGateway(opts: { url: string; apiKey: string; from?: string; timeoutMs?: number }): SmsGateway {
  return {
    async sendSms(to, text) {
      const body = new URLSearchParams({ api_id: opts.apiKey, to: to.replace(/^\+/, ''), msg: text, json: '1' });
      if (opts.from) body.set('from', opts.from);
      const res = await fetch(`${opts.url.replace(/\/$/, '')}/sms/send`, {
        method: 'POST',
        body,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
      const data = (await res.json().catch(() => null)) as {
        status?: string;
        status_code?: number;
        status_text?: string;
        sms?: Record<string, { status?: string; status_code?: number; status_text?: string }>;
      } | null;
      const one = data?.sms ? Object.values(data.sms)[0] : undefined;
      if (!res.ok || data?.status !== 'OK' || (one && one.status !== 'OK')) {
        const code = one && one.status !== 'OK' ? one.status_code : data?.status_code;
        // A 5xx, a 429 or an unreadable answer may pass; another 4xx or a refusal with a code will not.
        const transient = res.status >= 500 || res.status === 429 || (res.ok && code === undefined) || (code !== undefined && TRANSIENT_SMS_RU.has(code));
        throw new DeliveryError(`SMS gateway refused: HTTP ${res.status} ${code ?? ''} ${one?.status_text ?? data?.status_text ?? ''}`.replace(/\s+/g, ' ').trim(), !transient);
      }
    },
  };
}
