import type { FastifyBaseLogger } from 'fastify';
import type { Mailer } from './mail';
import type { Outbox, OutgoingMessage } from './outbox';
import type { SmsGateway } from './sms';

export type { OutgoingMessage } from './outbox';

export interface CodeDelivery {
  /**
   * Hands the message over after the answer: the time an answer takes must not tell a registered
   * address (a message is sent) from an unknown one at reset (nothing is sent). Failures are
   * logged; the player can ask again after a minute.
   */
  deliver(message: OutgoingMessage): void;
  /** Waits for messages still being handed to SMTP, the SMS gateway or the outbox. */
  settle(): Promise<void>;
  close(): void;
}

/**
 * One-time codes and account notes: email through the mailer and SMS through the gateway when
 * they are configured; whichever channel is not goes to the outbox (DATA_DIR/outbox/) instead.
 */
export function createCodeDelivery(deps: { mail: Mailer | null; sms: SmsGateway | null; outbox: Outbox; log: FastifyBaseLogger }): CodeDelivery {
  const { mail, sms, outbox, log } = deps;

  async function send(message: OutgoingMessage) {
    if (message.channel === 'email' && mail) {
      await mail.sendMail({ to: message.to, subject: message.subject, text: message.text });
    } else if (message.channel === 'sms' && sms) {
      await sms.sendSms(message.to, message.text);
    } else {
      await outbox.write(message);
    }
  }

  const inFlight = new Set<Promise<void>>();
  return {
    deliver(message) {
      const p: Promise<void> = send(message)
        .catch((err: unknown) => log.error({ err, to: message.to, channel: message.channel }, 'message not delivered'))
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    settle: () => Promise.all([...inFlight]).then(() => undefined),
    close: () => mail?.close(),
  };
}
