import type { Gamesserver } from '@adena/contract/lite';
import Telegram from '@mui/icons-material/Telegram';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { AmountField } from '../../../components/amount-field';
import { AppDialog } from '../../../components/app-dialog';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useUi } from '../../../lib/ui-store';
import { parseAmount } from '../../../utils/parse-amount';
import { useAddLimitOtvetka } from '../api/add-limit-otvetka';
import { useDelLimitOtvetka } from '../api/del-limit-otvetka';
import { useTelegramLink, useTelegramUnlink } from '../api/telegram-link';
import { aden, adenGen } from './code-format';
import { ApiError } from '../../../lib/api-client';
import { needsStepUp } from '../../../lib/step-up';
import { isTelegramLaunch, loadTelegram } from '../../../lib/telegram';

/**
 * Whether a notice below the threshold reaches the player: `linked` — it does; `unlinked` — once they
 * connect Telegram; `unknown` — the link could not be read (or is being read); `unavailable` — no bot
 * is configured, so none is sent however the threshold is set.
 */
type Delivery = 'linked' | 'unlinked' | 'unknown' | 'unavailable';

/** Who sends the notice, said after a threshold that is set: a message is promised only to a linked chat. */
const DELIVERY_NOTE: Record<Exclude<Delivery, 'linked'>, string> = {
  unlinked: 'Бот начнёт сообщать о балансе ниже порога, когда вы подключите Telegram.',
  unknown: 'Бот сообщит о балансе ниже порога, если Telegram подключён.',
  unavailable: 'Уведомления в Telegram сейчас недоступны: сообщений о балансе не будет.',
};

function ThresholdForm({ server, telegramPrice, delivery }: { server: Gamesserver; telegramPrice: number | null; delivery: Delivery }) {
  const [text, setText] = useState(telegramPrice ? String(telegramPrice) : '');
  const add = useAddLimitOtvetka();
  const del = useDelLimitOtvetka();
  const snackbar = useUi((s) => s.showSnackbar);
  const f = useFormErrors();
  const amount = parseAmount(text);
  // Without a bot no threshold can bring a message: nothing to set, only one set earlier to remove.
  if (delivery === 'unavailable' && telegramPrice === null) return null;
  const saved = (threshold: number) =>
    delivery === 'linked'
      ? `Сообщим, когда баланс станет меньше ${adenGen(threshold)}`
      : delivery === 'unlinked'
        ? `Порог сохранён. Подключите Telegram, и бот сообщит, когда баланс станет меньше ${adenGen(threshold)}`
        : `Порог сохранён: ${aden(threshold)}`;
  return (
    <Stack
      component="form"
      spacing={1.5}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        f.clear();
        if (amount === null) return;
        add.mutate(
          { gamesserver_id: server.id, telegram_price: amount },
          { onSuccess: (r) => snackbar(saved(r.success)), onError: (err) => f.fromError(err, ['telegram_price']) },
        );
      }}
    >
      {telegramPrice === null ? (
        <Typography color="textSecondary">Порог не задан: сообщений о балансе на {server.name} нет.</Typography>
      ) : delivery === 'linked' ? (
        <Typography data-testid="telegram-threshold">
          Сейчас: сообщение придёт, когда баланс адены на {server.name} станет меньше <b>{adenGen(telegramPrice)}</b>.
        </Typography>
      ) : (
        <Typography data-testid="telegram-threshold">
          Порог: <b>{aden(telegramPrice)}</b> на {server.name}. {DELIVERY_NOTE[delivery]}
        </Typography>
      )}
      {f.formError && <Alert severity="error">{f.formError}</Alert>}
      {delivery !== 'unavailable' && (
        <AmountField
          label="Порог баланса"
          value={text}
          // A server's error under the field was about the threshold sent: typing another one clears it (as the money form does).
          onChange={(v) => {
            if (f.fieldError('telegram_price')) f.clear();
            setText(v);
          }}
          unit={1}
          error={f.fieldError('telegram_price')}
          hint="Например, 10кк"
        />
      )}
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', rowGap: 1 }}>
        {delivery !== 'unavailable' && (
          <Button type="submit" variant="contained" disabled={add.isPending || amount === null}>
            Сохранить порог
          </Button>
        )}
        {telegramPrice !== null && (
          <Button
            color="error"
            disabled={del.isPending}
            onClick={() =>
              del.mutate(
                { gamesserver_id: server.id },
                {
                  onSuccess: () => {
                    setText('');
                    snackbar(delivery === 'unavailable' ? 'Порог удалён' : 'Уведомления о балансе отключены');
                  },
                  onError: (err) => f.fromError(err, ['telegram_price']),
                },
              )
            }
          >
            {delivery === 'unavailable' ? 'Удалить порог' : 'Отключить'}
          </Button>
        )}
      </Stack>
    </Stack>
  );
}

/** Telegram notices: link the chat through the bot's /start deep link, then set a balance threshold. */
export function SubscribeTelegramDialog({ server, telegramPrice }: { server: Gamesserver; telegramPrice: number | null }) {
  const open = useUi((s) => s.dialog.name === 'subscribe_telegram');
  const close = useUi((s) => s.closeDialog);
  const link = useTelegramLink(open);
  const unlink = useTelegramUnlink();
  const snackbar = useUi((s) => s.showSnackbar);
  // Only the server's answer about the notice chat: the profile's `telegram_linked` is also true for a
  // sign-in through Telegram without any chat, so it must not stand in when this call failed.
  const linked = link.data?.linked === true;
  const delivery: Delivery = linked ? 'linked' : link.data?.url ? 'unlinked' : link.data && !link.error ? 'unavailable' : 'unknown';
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Уведомления в Telegram"
      testId="subscribe-telegram-dialog"
      actions={<Button onClick={close}>Закрыть</Button>}
    >
      <Stack spacing={2.5}>
        <Typography>Бот напишет в Telegram, когда баланс адены опустится ниже порога, — чтобы вовремя пополнить кошелёк и не сорвать продажу кодов.</Typography>
        {link.isPending ? (
          <Skeleton variant="rounded" height={40} />
        ) : linked ? (
          <Stack direction="row" useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1 }}>
            <Alert severity="success" sx={{ flex: '1 1 16rem' }}>
              Telegram подключён.
            </Alert>
            <Button
              color="error"
              disabled={unlink.isPending}
              onClick={() =>
                unlink.mutate(undefined, {
                  onSuccess: () => snackbar('Telegram отключён: бот больше не напишет'),
                  onError: () => snackbar('Не удалось отключить Telegram, попробуйте ещё раз'),
                })
              }
            >
              Отключить Telegram
            </Button>
          </Stack>
        ) : link.data?.url ? (
          <Stack spacing={1}>
            <Button
              variant="outlined"
              startIcon={<Telegram />}
              href={link.data.url}
              target="_blank"
              rel="noopener noreferrer"
              sx={{ alignSelf: 'flex-start' }}
              onClick={(e) => {
                // Inside the mini app the bot's chat opens in Telegram itself, not as a web page.
                if (isTelegramLaunch()) {
                  e.preventDefault();
                  const url = link.data!.url!;
                  void loadTelegram().then((tg) => tg?.openTelegramLink(url) || window.open(url, '_blank'));
                }
                // The chat is linked in Telegram; look again when the user comes back (a browser tab
                // gets focus again, the mini app becomes visible again).
                const again = () => {
                  if (document.visibilityState !== 'visible') return;
                  void link.refetch();
                  window.removeEventListener('focus', again);
                  document.removeEventListener('visibilitychange', again);
                };
                window.addEventListener('focus', again);
                document.addEventListener('visibilitychange', again);
              }}
            >
              Подключить Telegram
            </Button>
            <Typography variant="body2" color="textSecondary">
              Откроется бот: нажмите в нём «Старт», затем вернитесь сюда.
            </Typography>
          </Stack>
        ) : link.error && needsStepUp(link.error) ? (
          // With TOTP on, the link is given after the code from the authenticator (the prompt was cancelled).
          <Stack direction="row" useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1 }}>
            <Alert severity="info" sx={{ flex: '1 1 16rem' }}>
              Чтобы подключить Telegram, подтвердите действие кодом из приложения-аутентификатора.
            </Alert>
            <Button variant="outlined" onClick={() => void link.refetch()}>
              Ввести код
            </Button>
          </Stack>
        ) : link.error ? (
          <Stack direction="row" useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1 }}>
            <Alert severity="warning" sx={{ flex: '1 1 16rem' }}>
              Не удалось узнать, подключён ли Telegram: {link.error instanceof ApiError ? link.error.message : 'нет связи с сервером'}
            </Alert>
            <Button variant="outlined" disabled={link.isFetching} onClick={() => void link.refetch()}>
              Повторить
            </Button>
          </Stack>
        ) : (
          <Alert severity="info">Уведомления в Telegram сейчас недоступны.</Alert>
        )}
        <ThresholdForm key={`${server.id}:${telegramPrice ?? ''}`} server={server} telegramPrice={telegramPrice} delivery={delivery} />
      </Stack>
    </AppDialog>
  );
}
