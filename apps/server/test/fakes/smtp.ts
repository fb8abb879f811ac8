// A real SMTP listener on loopback, standing in for the mail relay (SMTP_URL) in tests.
import { SMTPServer } from 'smtp-server';
import { codeIn, type ReceivedMessage } from './received';
import { waitFor } from './wait-for';

function decodeWords(header: string) {
  return header.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_, enc: string, data: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(data, 'base64').toString('utf8')
      : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}

function decodeQuotedPrintable(s: string) {
  const bytes = s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => `%${h}`);
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
}

/** Just enough MIME for nodemailer's single-part text mail. */
function parseMail(raw: string) {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  const cte = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const text =
    cte === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : cte === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : body;
  return { subject: decodeWords(headers.get('subject') ?? ''), text: text.trim() };
}

/** A real SMTP server on loopback that keeps every mail it is given. */
export async function startSmtp() {
  const messages: ReceivedMessage[] = [];
  /** Replies that refuse the next RCPT TO commands, first one first (e.g. 421, 550). */
  const refusals: number[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      const code = refusals.shift();
      if (code === undefined) return callback();
      const err = Object.assign(new Error(code < 500 ? 'Try again later' : 'No such mailbox'), { responseCode: code });
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const { subject, text } = parseMail(Buffer.concat(chunks).toString('utf8'));
        for (const rcpt of session.envelope.rcptTo) messages.push({ to: rcpt.address, subject, text, code: codeIn(text) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** The next recipient is refused with this SMTP reply code (421: try later; 550: never). */
    refuseNext(code: number) {
      refusals.push(code);
    },
    /** The n-th (1-based) mail to that address. */
    next: (to: string, nth = 1) =>
      waitFor(() => messages.filter((m) => m.to === to)[nth - 1], `mail #${nth} to ${to}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
