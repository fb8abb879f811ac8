// An SMS.ru-shaped HTTP gateway (SMS_API_URL) for tests.
import { createServer } from 'node:http';
import { closeServer, listen, readBody } from './http';
import { codeIn, type ReceivedMessage } from './received';
import { waitFor } from './wait-for';

/** SMS.ru's /sms/send: api_id, to, msg, json=1 by query or form; answers like SMS.ru does. */
export async function startSmsGateway(apiKey: string) {
  const messages: ReceivedMessage[] = [];
  let failNext = false;
  /** HTTP statuses for the next calls, first one first (the gateway's own trouble: 500, 503 …). */
  const httpFailures: number[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const form = new URLSearchParams(await readBody(req));
      const get = (k: string) => form.get(k) ?? url.searchParams.get(k);
      res.setHeader('Content-Type', 'application/json');
      if (url.pathname !== '/sms/send') {
        res.statusCode = 404;
        return res.end('{}');
      }
      if (get('api_id') !== apiKey) {
        return res.end(JSON.stringify({ status: 'ERROR', status_code: 200, status_text: 'Неправильный api_id' }));
      }
      const to = get('to') ?? '';
      const status = httpFailures.shift();
      if (status !== undefined) {
        res.statusCode = status;
        return res.end(JSON.stringify({ status: 'ERROR', status_text: 'Service Unavailable' }));
      }
      if (failNext) {
        failNext = false;
        return res.end(
          JSON.stringify({ status: 'OK', status_code: 100, sms: { [to]: { status: 'ERROR', status_code: 207, status_text: 'На этот номер нельзя отправлять сообщения' } } }),
        );
      }
      const text = get('msg') ?? '';
      messages.push({ to: `+${to}`, subject: '', text, code: codeIn(text) });
      res.end(JSON.stringify({ status: 'OK', status_code: 100, sms: { [to]: { status: 'OK', status_code: 100, sms_id: `000-${messages.length}` } }, balance: 100 }));
    })();
  });
  const url = await listen(server);
  return {
    url,
    messages,
    refuseNext() {
      failNext = true;
    },
    /** The next call is answered with this HTTP status before anything is sent. */
    failNextWith(status: number) {
      httpFailures.push(status);
    },
    next: (to: string, nth = 1) => waitFor(() => messages.filter((m) => m.to === to)[nth - 1], `SMS #${nth} to ${to}`),
    close: () => closeServer(server),
  };
}
