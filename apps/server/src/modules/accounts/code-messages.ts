import type { OutgoingMessage } from '../notifications/code-delivery';

type Channel = OutgoingMessage['channel'];

/**
 * Russian texts of every message the sign-in flows send, signed with the service's name (BRAND_NAME).
 * After a preposition the name stands in «» (a name like «Адена Кошелёк» is not declined).
 */
export const codeTexts = (SITE: string) => ({
  registerCode(channel: Channel, to: string, code: string): OutgoingMessage {
    return channel === 'email'
      ? {
          to,
          channel,
          subject: `Код подтверждения регистрации — ${SITE}`,
          text: `Здравствуйте!\n\nВаш код подтверждения: ${code}\nОн действует 10 минут.\n\nЕсли вы не регистрировались в «${SITE}», просто проигнорируйте это письмо.`,
          code,
        }
      : { to, channel, subject: 'Код подтверждения', text: `${SITE}: код подтверждения ${code}. Действует 10 минут.`, code };
  },
  alreadyRegistered(channel: Channel, to: string, siteUrl: string | undefined): OutgoingMessage {
    const reset = siteUrl ? ` ${siteUrl.replace(/\/$/, '')}/auth/reset/${channel === 'email' ? 'email' : 'phone'}` : '';
    return channel === 'email'
      ? {
          to,
          channel,
          subject: `У вас уже есть аккаунт — ${SITE}`,
          text: `Здравствуйте!\n\nКто-то, возможно вы, пытался зарегистрироваться с этим адресом, но у вас уже есть аккаунт в «${SITE}». Войдите с вашим паролем или восстановите его:${reset || ' «Забыли пароль?» на странице входа.'}\n\nЕсли это были не вы, ничего делать не нужно.`,
          code: null,
        }
      : {
          to,
          channel,
          subject: 'У вас уже есть аккаунт',
          text: `${SITE}: у вас уже есть аккаунт с этим номером. Войдите или восстановите пароль.`,
          code: null,
        };
  },
  resetCode(channel: Channel, to: string, code: string): OutgoingMessage {
    return channel === 'email'
      ? {
          to,
          channel,
          subject: `Восстановление пароля — ${SITE}`,
          text: `Здравствуйте!\n\nКод для восстановления пароля: ${code}\nОн действует 10 минут.\n\nЕсли вы не запрашивали восстановление, проигнорируйте это письмо: пароль останется прежним.`,
          code,
        }
      : { to, channel, subject: 'Восстановление пароля', text: `${SITE}: код для восстановления пароля ${code}. Действует 10 минут.`, code };
  },
});
