import { z } from 'zod';

/** The part of Telegram's Update the webhook reads; anything else in it is ignored. */
export const TelegramUpdateSchema = z
  .object({
    update_id: z.number().int(),
    message: z
      .object({
        chat: z.object({ id: z.number().int(), type: z.string() }).loose(),
        text: z.string().max(4096).optional(),
      })
      .loose()
      .optional(),
  })
  .loose();
export type TelegramUpdate = z.infer<typeof TelegramUpdateSchema>;

/** What a private chat asked the bot: `/start <token>` links it, `/stop` unlinks it. */
export type BotCommand = { chatId: bigint } & ({ kind: 'start'; token: string | null } | { kind: 'stop' });

/** Telegram's wire shape → the bot's command, or null for anything the bot does not answer. */
export function toBotCommand(update: TelegramUpdate): BotCommand | null {
  const message = update.message;
  const text = message?.text?.trim();
  if (!message || !text || message.chat.type !== 'private') return null;
  const chatId = BigInt(message.chat.id);
  const start = /^\/start(?:@\w+)?(?:\s+(\S+))?$/.exec(text);
  if (start) return { chatId, kind: 'start', token: start[1] ?? null };
  if (/^\/stop(?:@\w+)?$/.test(text)) return { chatId, kind: 'stop' };
  return null;
}
