import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  token: string;
  chat_id: number;
  text: string;
}

/** A local HTTP server that speaks the Bot API's sendMessage and records what it was asked to send. */
export async function startFakeBotApi() {
  const sent: SentMessage[] = [];
  const webhooks: Array<{ token: string; url: string; secret_token?: string }> = [];
  /** Refusals the next sendMessage calls get, in order (Telegram's own body shape). */
  const refusals: Array<{ status: number; description: string; before?: () => Promise<void> }> = [];
  let rateLimitNext: number | null = null;
  let webhookDown = 0;
  /** While true, every sendMessage answers 502 (Telegram unreachable behind its proxy, for a while). */
  let sendDown = false;
  /** Chats that blocked the bot: every message to them is refused. */
  const blocked = new Set<number>();
  /** Every setWebhook call, answered or refused. */
  const webhookCalls: number[] = [];
  /** Every sendMessage call, answered or refused, in order. */
  const attempts: Array<{ chat_id: number; status: number }> = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      const hook = /^\/bot([^/]+)\/setWebhook$/.exec(req.url ?? '');
      if (hook && req.method === 'POST') {
        if (webhookDown > 0) {
          webhookDown -= 1;
          webhookCalls.push(502);
          res.statusCode = 502;
          res.end(JSON.stringify({ ok: false, error_code: 502, description: 'Bad Gateway' }));
          return;
        }
        webhookCalls.push(200);
        webhooks.push({ token: hook[1]!, ...(JSON.parse(raw) as { url: string; secret_token?: string }) });
        res.end(JSON.stringify({ ok: true, result: true, description: 'Webhook was set' }));
        return;
      }
      const m = /^\/bot([^/]+)\/sendMessage$/.exec(req.url ?? '');
      if (!m || req.method !== 'POST') {
        res.statusCode = 404;
        res.end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
        return;
      }
      const asked = JSON.parse(raw) as { chat_id: number };
      if (sendDown) {
        attempts.push({ chat_id: asked.chat_id, status: 502 });
        res.statusCode = 502;
        res.end(JSON.stringify({ ok: false, error_code: 502, description: 'Bad Gateway' }));
        return;
      }
      if (rateLimitNext !== null) {
        const retry_after = rateLimitNext;
        rateLimitNext = null;
        attempts.push({ chat_id: asked.chat_id, status: 429 });
        res.statusCode = 429;
        res.end(JSON.stringify({ ok: false, error_code: 429, description: `Too Many Requests: retry after ${retry_after}`, parameters: { retry_after } }));
        return;
      }
      if (blocked.has(asked.chat_id)) {
        attempts.push({ chat_id: asked.chat_id, status: 403 });
        res.statusCode = 403;
        res.end(JSON.stringify({ ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' }));
        return;
      }
      const refusal = refusals.shift();
      if (refusal) {
        attempts.push({ chat_id: asked.chat_id, status: refusal.status });
        void (refusal.before ?? (async () => {}))().finally(() => {
          res.statusCode = refusal.status;
          res.end(JSON.stringify({ ok: false, error_code: refusal.status, description: refusal.description }));
        });
        return;
      }
      const body = JSON.parse(raw) as { chat_id: number; text: string };
      attempts.push({ chat_id: body.chat_id, status: 200 });
      sent.push({ token: m[1]!, chat_id: body.chat_id, text: body.text });
      res.end(JSON.stringify({ ok: true, result: { message_id: sent.length, date: 0, chat: { id: body.chat_id, type: 'private' }, text: body.text } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    webhooks,
    attempts,
    /** The next sendMessage answers 403 «Forbidden: bot was blocked by the user», as Telegram does. */
    failOnce: () => {
      refusals.push({ status: 403, description: 'Forbidden: bot was blocked by the user' });
    },
    /**
     * The next sendMessage is refused with this status and description (`{ ok: false, error_code,
     * description }`, Telegram's shape): 403 «Forbidden: user is deactivated», 400 «Bad Request: chat
     * not found»… `before` runs while the call waits for its answer (something changing meanwhile).
     */
    refuseOnce: (status: number, description: string, before?: () => Promise<void>) => {
      refusals.push({ status, description, before });
    },
    /** Every sendMessage to this chat answers 403 «Forbidden: bot was blocked by the user» from now on. */
    blockChat: (chatId: number) => {
      blocked.add(chatId);
    },
    /** The next sendMessage answers 429 with `parameters.retry_after` = seconds, as Telegram does. */
    rateLimitOnce: (seconds: number) => {
      rateLimitNext = seconds;
    },
    webhookCalls,
    /** From now on every sendMessage answers 502 (`true`), until called with `false`. */
    sendDownWhile: (down: boolean) => {
      sendDown = down;
    },
    /** The next `times` setWebhook calls answer 502, as Telegram does while it is unreachable behind its proxy. */
    webhookDownFor: (times: number) => {
      webhookDown = times;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

// The same poll as every fake's (kept importable from here for the Telegram tests).
export { waitFor } from './wait-for';
