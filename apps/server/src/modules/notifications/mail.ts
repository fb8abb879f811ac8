import nodemailer from 'nodemailer';

export interface Mailer {
  sendMail(mail: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

/**
 * The longest one mail may take, from connecting to the relay's answer to the end of DATA. The
 * transport's timeouts bound each step only (a relay answering every command just before
 * socketTimeout keeps a send going for minutes); this bounds the whole send, well under the message
 * job's lease (code-delivery.ts), so no other worker takes the job while this send may still finish.
 */
export const MAIL_SEND_DEADLINE_MS = 45_000;

/** Plain-text mail through one SMTP relay (SMTP_URL), from MAIL_FROM. */
export function createMailer(opts: { url: string; from: string; deadlineMs?: number }): Mailer {
  const deadlineMs = opts.deadlineMs ?? MAIL_SEND_DEADLINE_MS;
  // nodemailer's default timeouts run to minutes; a stuck relay must not hold shutdown that long.
  // socketCloseTimeout 0: a connection closed is destroyed, with whatever it had not written yet
  // (a send cut at its deadline must not finish the DATA the socket still holds).
  const transport = nodemailer.createTransport({
    url: opts.url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
    socketCloseTimeout: 0,
  });
  return {
    async sendMail(mail) {
      // At the deadline nodemailer fails the send (EABORT) and closes its connection: the relay never
      // sees the end of DATA, so the mail is not delivered late by a send the queue has given up on.
      const signal = AbortSignal.timeout(deadlineMs);
      await transport.sendMail({ from: opts.from, ...mail, signal }).catch((err: unknown) => {
        // Passed on as a network failure is (no responseCode): the queue tries the mail again.
        throw signal.aborted ? new Error(`SMTP send not finished within ${deadlineMs} ms`, { cause: err }) : err;
      });
    },
    close: () => transport.close(),
  };
}
