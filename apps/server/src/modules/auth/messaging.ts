import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { Config } from '../../config';

/** PRODUCT.md section 5: the shape of an outbox file, and of every message we send. */
export interface OutgoingMessage {
  to: string;
  channel: 'email' | 'sms';
  subject: string;
  text: string;
  /** The one-time code in the text, or null for a message that carries none. */
  code: string | null;
}

export interface Sender {
  send(message: OutgoingMessage): Promise<void>;
}

/** An SMS gateway: one real HTTP one (SMS.ru) and the outbox stand-in. */
export interface SmsGateway {
  sendSms(to: string, text: string): Promise<void>;
}

export class DeliveryError extends Error {}

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
        status_text?: string;
        sms?: Record<string, { status?: string; status_text?: string }>;
      } | null;
      const one = data?.sms ? Object.values(data.sms)[0] : undefined;
      if (!res.ok || data?.status !== 'OK' || (one && one.status !== 'OK')) {
        throw new DeliveryError(`SMS gateway refused: HTTP ${res.status} ${one?.status_text ?? data?.status_text ?? ''}`.trim());
      }
    },
  };
}

/** The outbox of a bare machine: one JSON file per message, written whole (temp file + rename). */
export function createOutbox(dataDir: string, log: FastifyBaseLogger): Sender {
  const dir = resolve(dataDir, 'outbox');
  // Names sort in the order the messages were written (time, then a counter within the process).
  let seq = 0;
  return {
    async send(message) {
      await mkdir(dir, { recursive: true });
      seq = (seq + 1) % 1_000_000;
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(seq).padStart(6, '0')}-${randomBytes(3).toString('hex')}.json`;
      const tmp = join(dir, `.${name}.tmp`);
      await writeFile(tmp, `${JSON.stringify(message, null, 2)}\n`);
      await rename(tmp, join(dir, name));
      // Logged so that sign-up works from the console on a machine with no mail or SMS set up.
      log.info({ to: message.to, channel: message.channel, file: join(dir, name) }, `outbox: ${message.subject}: ${message.text}`);
    },
  };
}

/**
 * Email through SMTP_URL and SMS through SMS_API_URL when set; whichever channel is not
 * configured goes to DATA_DIR/outbox/ instead.
 */
export function createSender(config: Config, log: FastifyBaseLogger): Sender & { close(): void } {
  const outbox = createOutbox(config.DATA_DIR, log);
  // nodemailer's default timeouts run to minutes; a stuck relay must not hold shutdown that long.
  const mail = config.SMTP_URL
    ? nodemailer.createTransport({ url: config.SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 })
    : null;
  const sms =
    config.SMS_API_URL && config.SMS_API_KEY
      ? createSmsRuGateway({ url: config.SMS_API_URL, apiKey: config.SMS_API_KEY, from: config.SMS_FROM })
      : null;
  return {
    async send(message) {
      if (message.channel === 'email' && mail) {
        await mail.sendMail({ from: config.MAIL_FROM, to: message.to, subject: message.subject, text: message.text });
      } else if (message.channel === 'sms' && sms) {
        await sms.sendSms(message.to, message.text);
      } else {
        await outbox.send(message);
      }
    },
    close() {
      mail?.close();
    },
  };
}

const SITE = 'Adena Wallet';

/** Russian texts of every message the sign-in flows send. */
export const texts = {
  registerCode(channel: 'email' | 'sms', to: string, code: string): OutgoingMessage {
    return channel === 'email'
      ? {
          to,
          channel,
          subject: `Код подтверждения регистрации — ${SITE}`,
          text: `Здравствуйте!\n\nВаш код подтверждения: ${code}\nОн действует 10 минут.\n\nЕсли вы не регистрировались в ${SITE}, просто проигнорируйте это письмо.`,
          code,
        }
      : { to, channel, subject: 'Код подтверждения', text: `${SITE}: код подтверждения ${code}. Действует 10 минут.`, code };
  },
  alreadyRegistered(channel: 'email' | 'sms', to: string, siteUrl: string | undefined): OutgoingMessage {
    const reset = siteUrl ? ` ${siteUrl.replace(/\/$/, '')}/auth/reset/${channel === 'email' ? 'email' : 'phone'}` : '';
    return channel === 'email'
      ? {
          to,
          channel,
          subject: `У вас уже есть аккаунт — ${SITE}`,
          text: `Здравствуйте!\n\nКто-то, возможно вы, пытался зарегистрироваться с этим адресом, но у вас уже есть аккаунт в ${SITE}. Войдите с вашим паролем или восстановите его:${reset || ' «Забыли пароль?» на странице входа.'}\n\nЕсли это были не вы, ничего делать не нужно.`,
          code: null,
        }
      : {
          to,
          channel,
          subject: 'У вас уже есть аккаунт',
          text: `${SITE}: у вас уже есть аккаунт с этим номером. Войдите или восстановите пароль.`,
          code: null,
        };
  },
  resetCode(channel: 'email' | 'sms', to: string, code: string): OutgoingMessage {
    return channel === 'email'
      ? {
          to,
          channel,
          subject: `Восстановление пароля — ${SITE}`,
          text: `Здравствуйте!\n\nКод для восстановления пароля: ${code}\nОн действует 10 минут.\n\nЕсли вы не запрашивали восстановление, проигнорируйте это письмо: пароль останется прежним.`,
          code,
        }
      : { to, channel, subject: 'Восстановление пароля', text: `${SITE}: код для восстановления пароля ${code}. Действует 10 минут.`, code };
  },
};
