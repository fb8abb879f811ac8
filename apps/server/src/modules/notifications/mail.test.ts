import { afterEach, describe, expect, it } from 'vitest';
import { startSlowSmtp } from '../../../test/fakes/slow-smtp';
import { waitFor } from '../../../test/fakes/wait-for';
import { MESSAGE_LEASE_MS } from './code-delivery';
import { createMailer, MAIL_SEND_DEADLINE_MS } from './mail';

const MAIL = { to: 'player@example.com', subject: 'Код', text: 'Ваш код подтверждения: 042917' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The longest a send cut at its 500 ms deadline may take here: 1 s of margin for a stalled worker on a
 * loaded machine, and still short of the earliest moment a send without the deadline could end. The
 * relay's answers come every 300 ms (six of them: 1.8 s for the whole send) or every 2 s (the first one,
 * the greeting, at 2 s); nodemailer's own timeouts are 10 s and more. So a send that did not apply the
 * deadline cannot finish, or fail, before 1.8 s, and 1 500 ms keeps 300 ms between the two.
 */
const CUT_WITHIN_MS = 1_500;

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
    expect(Date.now() - started).toBeLessThan(CUT_WITHIN_MS);
    // Past the time the whole send would have taken: nothing came later over the cut connection.
    await sleep(2200 - (Date.now() - started));
    expect(relay.sessions).toHaveLength(1);
    expect(relay.sessions[0]).toMatchObject({ dataEnded: false, closedAt: expect.any(Number) });
    // The connection closed at the deadline too: a send left to run would close it only after its QUIT (past 1.8 s).
    expect(relay.sessions[0]!.closedAt! - started).toBeLessThan(CUT_WITHIN_MS);
  });

  it('a relay that stalls longer than the deadline at every answer: the send fails at the deadline, not after the idle timeout', async () => {
    const { relay, mailer } = await setup(2000, 500);
    const started = Date.now();
    await expect(mailer.sendMail(MAIL)).rejects.toThrow('SMTP send not finished within 500 ms');
    // Before the relay's first answer (2 s): only the deadline can have ended the send this early.
    expect(Date.now() - started).toBeLessThan(CUT_WITHIN_MS);
    const closedAt = await waitFor(() => relay.sessions[0]?.closedAt ?? undefined, 'the relay to see the connection closed', 5_000);
    expect(relay.sessions[0]).toMatchObject({ dataEnded: false, closedAt: expect.any(Number) });
    // Closed by the deadline too, not by the idle timeout seconds later.
    expect(closedAt - started).toBeLessThan(CUT_WITHIN_MS);
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
