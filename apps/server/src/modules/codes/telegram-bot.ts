// The requests module's old import path; the client lives in notifications/telegram-bot.ts.
export { createTelegramBot, type SendResult, type TelegramBot, webhookSecretOf } from '../notifications/telegram-bot';
