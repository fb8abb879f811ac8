import { afterEach, describe, expect, it } from 'vitest';
import { startSlowSmtp } from '../../../test/fakes/slow-smtp';
import { MESSAGE_LEASE_MS } from './code-delivery';
import { createMailer, MAIL_SEND_DEADLINE_MS } from './mail';

const MAIL = { to: 'player@example.com', subject: 'Код', text: 'Ваш код подтверждения: 042917' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('one mail send and its deadline', () => {
  const closing: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });
  async function setup(relayDelayMs: number, deadlineMs: number) {
    const relay = await startSlowSmtp(relayDelayMs);
    const mailer = createMailer({ url: relay.url, from: 'no-reply@adena.test', deadlineMs });
    closing.push(relay.close, mailer.close);
    return { relay, mailer };
  }

  it('a relay answering each command just under the idle timeout: the send fails at its deadline, its connection is closed and the relay never gets the end of DATA', async () => {
    // Six answers of 300 ms: the whole send would take 1.8 s, each wait far under socketTimeout.
    const { relay, mailer } = await setup(300, 500);
    const started = Date.now();
    await expect(mailer.sendMail(MAIL)).rejects.toThrow('SMTP send not finished within 500 ms');
    expect(Date.now() - started).toBeLessThan(500 + 400);
    // Past the time the whole send would have taken: nothing came later over the cut connection.
    await sleep(2200 - (Date.now() - started));
    expect(relay.sessions).toHaveLength(1);
    expect(relay.sessions[0]).toMatchObject({ dataEnded: false, closedAt: expect.any(Number) });
    expect(relay.sessions[0]!.closedAt! - started).toBeLessThan(500 + 400);
  });

  it('a relay that stalls longer than the deadline at every answer: the send fails at the deadline, not after the idle timeout', async () => {
    const { relay, mailer } = await setup(2000, 500);
    const started = Date.now();
    await expect(mailer.sendMail(MAIL)).rejects.toThrow('SMTP send not finished within 500 ms');
    expect(Date.now() - started).toBeLessThan(500 + 400);
    await sleep(100);
    expect(relay.sessions[0]).toMatchObject({ dataEnded: false, closedAt: expect.any(Number) });
  });

  it('a relay answering in time delivers the mail', async () => {
    const { relay, mailer } = await setup(20, 2000);
    await mailer.sendMail(MAIL);
    expect(relay.sessions[0]!.dataEnded).toBe(true);
  });

  it("the deadline is well under the message job's lease: no other worker takes a job while its mail may still go", () => {
    expect(MESSAGE_LEASE_MS).toBeGreaterThanOrEqual(2 * MAIL_SEND_DEADLINE_MS);
  });
});
