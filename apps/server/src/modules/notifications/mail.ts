import nodemailer from 'nodemailer';

export interface Mailer {
  sendMail(mail: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

/** Plain-text mail through one SMTP relay (SMTP_URL), from MAIL_FROM. */
export function createMailer(opts: { url: string; from: string }): Mailer {
  // nodemailer's default timeouts run to minutes; a stuck relay must not hold shutdown that long.
  const transport = nodemailer.createTransport({ url: opts.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    async sendMail(mail) {
      await transport.sendMail({ from: opts.from, ...mail });
    },
    close: () => transport.close(),
  };
}
