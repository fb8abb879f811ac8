import Telegram from '@mui/icons-material/Telegram';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Stack from '@mui/material/Stack';
import { useState } from 'react';
import { newNonce, startDiscordSignIn, startTelegramSignIn, telegramReturnTo } from '../../../lib/sign-in-binding';
import { isTelegramLaunch, REOPEN_TO_SIGN_IN } from '../../../lib/telegram';
import { useAuthConfig } from '../api/auth-config';

function DiscordIcon() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
      <path d="M20.3 4.4A19.8 19.8 0 0 0 15.4 3l-.6 1.3a18.4 18.4 0 0 0-5.6 0L8.6 3a19.7 19.7 0 0 0-4.9 1.5C.6 9.1-.3 13.6.1 18.1a19.9 19.9 0 0 0 6 3l1.3-2.1a12.9 12.9 0 0 1-2-1l.5-.4a14.2 14.2 0 0 0 12.2 0l.5.4c-.7.4-1.3.7-2 1l1.3 2.1a19.8 19.8 0 0 0 6-3c.5-5.2-.8-9.7-3.6-13.7ZM8 15.3c-1.2 0-2.2-1.1-2.2-2.4s1-2.4 2.2-2.4 2.2 1.1 2.2 2.4-1 2.4-2.2 2.4Zm8 0c-1.2 0-2.2-1.1-2.2-2.4s1-2.4 2.2-2.4 2.2 1.1 2.2 2.4-1 2.4-2.2 2.4Z" />
    </svg>
  );
}

/**
 * Telegram's own login page (the one its Login Widget opens), returning to our callback with
 * #tgAuthResult; no script from Telegram's servers runs in our page. The return_to carries the
 * tab's nonce, which the callback checks (lib/sign-in-binding.ts).
 */
function telegramLoginUrl(botId: number, nonce: string) {
  const origin = window.location.origin;
  const q = new URLSearchParams({ bot_id: String(botId), origin, request_access: 'write', return_to: telegramReturnTo(nonce) });
  return `https://oauth.telegram.org/auth?${q}`;
}

/**
 * Discord and Telegram sign-in, shown only when the server has them configured; the «или» divider only with them.
 * Inside the mini app Telegram's login page would open in the mini app's own webview and ask for a phone: there
 * the Telegram button says how the app signs in by itself instead (a new launch). Discord's is left out there: its
 * page too would replace the mini app's own, and the account it signed in would not be the chat's.
 */
export function SocialButtons({ divided = false }: { divided?: boolean }) {
  const { data } = useAuthConfig();
  const [nonce] = useState(newNonce);
  const [inTelegram] = useState(isTelegramLaunch);
  if (!data?.discord && !data?.telegram && !inTelegram) return null;
  return (
    <Stack spacing={1}>
      {divided && <Divider sx={{ pb: 1 }}>или</Divider>}
      {data?.discord && !inTelegram && (
        <Button variant="outlined" size="large" startIcon={<DiscordIcon />} href={data.discord.authorize_url}
          onClick={() => startDiscordSignIn(data.discord!.authorize_url)}
        >
          Войти через Discord
        </Button>
      )}
      {inTelegram ? (
        <Alert severity="info" icon={<Telegram />} data-testid="telegram-reopen">
          {REOPEN_TO_SIGN_IN}
        </Alert>
      ) : data?.telegram && (
        <Button
          variant="outlined"
          size="large"
          startIcon={<Telegram />}
          href={telegramLoginUrl(data.telegram.bot_id, nonce)}
          onClick={() => startTelegramSignIn(nonce)}
        >
          Войти через Telegram
        </Button>
      )}
    </Stack>
  );
}
