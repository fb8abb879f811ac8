import type { AdminUser } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useEffect, useRef, useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import type { FocusSpot } from '../../../hooks/use-focus-after-removal';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { needsStepUp } from '../../../lib/step-up';
import { UNTIL_CLOSED, useUi } from '../../../lib/ui-store';
import { useUserActions } from '../api/users';
import { ReasonDialog } from '../../../components/reason-dialog';

/** «Анна», or №5 for a user with no name, email or phone. */
const userLabel = (u: AdminUser) => {
  const who = u.name || u.email || u.phone;
  return who ? `«${who}»` : `№${u.id}`;
};
/** At the head of a sentence, where a verb agrees with it: «Пользователь «Анна» заблокирован», «Пользователь №5 …». */
const userSubject = (u: AdminUser) => `Пользователь ${userLabel(u)}`;
/** For the second factor's prompt, where the id settles which user: «Анна» (id 5), or №5 alone. */
const userRef = (u: AdminUser) => (u.name || u.email || u.phone ? `${userLabel(u)} (id ${u.id})` : userLabel(u));
// The day in the operator's own time zone (YYYY-MM-DD), as the date field shows it and saving reads it.
const dateOnly = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'long' });
const isoDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/**
 * Whether the dialog is still on screen (open, its card not left): an answer that comes later only says
 * its outcome, naming the player, and does not close a dialog the operator has opened since.
 */
function useStillShown(open: boolean) {
  const shown = useRef({ open, mounted: true });
  shown.current.open = open;
  useEffect(() => {
    shown.current.mounted = true;
    return () => {
      shown.current.mounted = false;
    };
  }, []);
  return () => shown.current.mounted && shown.current.open;
}

/**
 * `focus`: called as the action starts, when its success takes away the card's button that opened the dialog
 * («Заблокировать» becomes «Разблокировать»): focus goes to the one that takes its place (useFocusAfterRemoval),
 * not to the page's top.
 */
type Focus = { focus?(): FocusSpot };

/**
 * A step-up prompt the operator cancelled with the dialog still on screen is no error: the dialog stays, with what
 * was typed, for another try. A prompt withdrawn because the card was left is still said (the dialog is gone).
 */
const cancelledHere = (e: unknown, stillShown: () => boolean) => needsStepUp(e) && stillShown();

const STOLEN_LEFTOVERS = 'ключи продавца, ключи доступа (passkeys), вебхук и чат Telegram для уведомлений';
// The server also unlinks a Discord account linked by email and closes linking by email for good: undoing
// that takes support editing the database, so the operator is told before confirming.
const DISCORD_BY_EMAIL = 'Discord, привязанный по почте (и по почте Discord к аккаунту больше не привяжется)';

/**
 * Blocks a user; «Аккаунт угнан» also removes what a thief could have left behind, so an unblock does
 * not bring it back. `stolen`: the user is blocked already and the operator has learned it was stolen.
 */
export function BlockDialog({ user, open, onClose, stolen: alreadyBlocked = false, focus }: { user: AdminUser; open: boolean; onClose(): void; stolen?: boolean } & Focus) {
  const { block } = useUserActions(user.id);
  const showSnackbar = useUi((s) => s.showSnackbar);
  const [ticked, setTicked] = useState(false);
  const stolen = alreadyBlocked || ticked;
  return (
    <ReasonDialog
      open={open}
      // Escape or a click beside keeps the tick with the typed reason; «Отмена» and a block done clear both.
      onClose={onClose}
      onCancel={() => setTicked(false)}
      title={alreadyBlocked ? `Аккаунт ${userLabel(user)} угнан?` : `Заблокировать пользователя ${userLabel(user)}?`}
      refusedTitle={alreadyBlocked ? `Ключи пользователя ${userLabel(user)} не удалены` : `${userSubject(user)} не заблокирован`}
      testId="block-dialog"
      explanation={
        alreadyBlocked
          ? `Пользователь уже заблокирован. Удалятся ${STOLEN_LEFTOVERS}; отвяжется ${DISCORD_BY_EMAIL}. Так после разблокировки ими не воспользуется вор.`
          : 'Все его сеансы завершатся сразу, открытые страницы выйдут из аккаунта, войти снова он не сможет. Балансы и заявки останутся как есть.'
      }
      label="Причина (для журнала)"
      extra={
        alreadyBlocked ? undefined : (
          <FormControlLabel
            control={<Checkbox checked={ticked} onChange={(e) => setTicked(e.target.checked)} />}
            label={`Аккаунт угнан: удалить ${STOLEN_LEFTOVERS} и отвязать ${DISCORD_BY_EMAIL}, чтобы они не вернулись после разблокировки`}
          />
        )
      }
      confirmLabel={alreadyBlocked ? 'Удалить' : 'Заблокировать'}
      danger
      submit={(reason) => {
        const spot = focus?.();
        return block.mutateAsync({ reason, revokeKeys: stolen }).then(
          () => {
            setTicked(false);
            showSnackbar(
              alreadyBlocked
                ? `Ключи угнанного аккаунта ${userLabel(user)} удалены`
                : stolen
                  ? `${userSubject(user)} заблокирован, его сеансы завершены, ключи удалены`
                  : `${userSubject(user)} заблокирован, его сеансы завершены`,
            );
            spot?.done();
          },
          (e: unknown) => {
            spot?.back();
            throw e;
          },
        );
      }}
    />
  );
}

export function UnblockDialog({ user, open, onClose, focus }: { user: AdminUser; open: boolean; onClose(): void } & Focus) {
  const { unblock } = useUserActions(user.id);
  const alert = useUi((s) => s.alert);
  const showSnackbar = useUi((s) => s.showSnackbar);
  const stillShown = useStillShown(open);
  const who = userSubject(user);
  // The admin flag stays on a blocked operator: bringing one back asks for the operator's own code.
  const operator = user.admin;
  return (
    <AppDialog
      open={open}
      onClose={onClose}
      title={operator ? `Разблокировать администратора ${userLabel(user)}?` : `Разблокировать пользователя ${userLabel(user)}?`}
      testId="unblock-dialog"
      actions={
        <>
          <Button onClick={onClose}>Отмена</Button>
          <Button
            variant="contained"
            disabled={unblock.isPending}
            onClick={() => {
              const spot = focus?.();
              unblock.mutateAsync({ about: `${operator ? 'Разблокировать администратора' : 'Разблокировать пользователя'} ${userRef(user)}` }).then(
                () => {
                  showSnackbar(`${who} разблокирован`);
                  spot?.done();
                  if (stillShown()) onClose();
                },
                (e: Error) => {
                  spot?.back();
                  if (!cancelledHere(e, stillShown)) alert(`${who} не разблокирован`, [e.message], UNTIL_CLOSED);
                },
              );
            }}
          >
            Разблокировать
          </Button>
        </>
      }
    >
      <Typography>
        {operator
          ? 'Он снова сможет войти, распоряжаться своими кошельками и кодами и работать в разделе администрирования. Подтвердите своим кодом.'
          : 'Он снова сможет войти и распоряжаться своими кошельками и кодами.'}
      </Typography>
    </AppDialog>
  );
}

export function TwoFactorOffDialog({ user, open, onClose, focus }: { user: AdminUser; open: boolean; onClose(): void } & Focus) {
  const { twoFactorOff } = useUserActions(user.id);
  const showSnackbar = useUi((s) => s.showSnackbar);
  return (
    <ReasonDialog
      open={open}
      onClose={onClose}
      title={`Отключить вход с кодом для ${userLabel(user)}?`}
      refusedTitle={`Вход с кодом для ${userLabel(user)} не отключён`}
      testId="two-factor-off-dialog"
      explanation={`Только когда вы убедились, что просит владелец (потерял телефон с приложением или нашёл в аккаунте чужой код). Резервные коды, ${STOLEN_LEFTOVERS} удалятся, отвяжется ${DISCORD_BY_EMAIL}, все сеансы завершатся; войти можно будет паролем, вход с кодом владелец включит снова в профиле. Подтвердите своим кодом.`}
      label="Причина и как проверен владелец"
      confirmLabel="Отключить"
      danger
      submit={(reason) => {
        const spot = focus?.();
        return twoFactorOff.mutateAsync({ reason, about: `Отключить вход с кодом для ${userRef(user)}` }).then(
          () => {
            showSnackbar(`Вход с кодом для ${userLabel(user)} отключён, его сеансы завершены`);
            spot?.done();
          },
          (e: unknown) => {
            spot?.back();
            throw e;
          },
        );
      }}
    />
  );
}

export function VipDialog({ user, open, onClose }: { user: AdminUser; open: boolean; onClose(): void }) {
  const { setVip } = useUserActions(user.id);
  const dayOf = (u: AdminUser) => isoDay(new Date(u.vip_until && u.vip ? u.vip_until : Date.now() + 30 * 86_400_000));
  const [day, setDay] = useState(() => dayOf(user));
  // Each opening starts from the card as it is now (the player may have bought VIP since the last one), and
  // a change of the player's VIP while it is open is said: a date saved over it would take the paid days away.
  const [opening, setOpening] = useState({ open, vipUntil: user.vip_until });
  if (open !== opening.open) {
    setOpening({ open, vipUntil: user.vip_until });
    if (open) setDay(dayOf(user));
  }
  const changedMeanwhile = open && opening.open && user.vip_until !== opening.vipUntil;
  const f = useFormErrors();
  const showSnackbar = useUi((s) => s.showSnackbar);
  const alert = useUi((s) => s.alert);
  const stillShown = useStillShown(open);
  const who = userLabel(user);
  const close = () => {
    f.clear();
    onClose();
  };
  const save = (value: string | null) =>
    setVip.mutateAsync(value).then(
      () => {
        showSnackbar(value ? `VIP для ${who} сохранён: до ${dateOnly.format(new Date(value))}` : `VIP для ${who} снят`);
        if (stillShown()) close();
      },
      (e: Error) => (stillShown() ? f.fromError(e) : alert(`VIP для ${who} не изменён`, [e.message], UNTIL_CLOSED)),
    );
  return (
    <AppDialog
      open={open}
      onClose={close}
      title={`VIP для ${userLabel(user)}`}
      testId="vip-dialog"
      actions={
        <>
          {user.vip && (
            <Button color="error" onClick={() => save(null)} disabled={setVip.isPending} sx={{ mr: 'auto' }}>
              Снять VIP
            </Button>
          )}
          <Button onClick={close}>Отмена</Button>
          <Button
            variant="contained"
            disabled={setVip.isPending || !day}
            // The end of the chosen day in the admin's own time zone.
            onClick={() => save(new Date(`${day}T23:59:59`).toISOString())}
          >
            Сохранить
          </Button>
        </>
      }
    >
      <Stack spacing={2} sx={{ pt: 1 }}>
        {changedMeanwhile && (
          <Alert severity="warning" data-testid="vip-changed">
            VIP игрока изменился, пока открыт этот диалог ({user.vip && user.vip_until ? `теперь до ${dateOnly.format(new Date(user.vip_until))}` : 'теперь его нет'}).
            Проверьте дату.
          </Alert>
        )}
        <Typography>VIP платит меньшую комиссию за коды, его выводы идут первыми в очереди.</Typography>
        <TextField
          type="date"
          label="VIP до (включительно)"
          value={day}
          onChange={(e) => setDay(e.target.value)}
          error={Boolean(f.fieldError('vip_until') ?? f.formError)}
          helperText={f.fieldError('vip_until') ?? f.formError}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { min: isoDay(new Date()) } }}
        />
      </Stack>
    </AppDialog>
  );
}

export function AdminRoleDialog({ user, open, onClose }: { user: AdminUser; open: boolean; onClose(): void }) {
  const { setAdmin } = useUserActions(user.id);
  const alert = useUi((s) => s.alert);
  const showSnackbar = useUi((s) => s.showSnackbar);
  const stillShown = useStillShown(open);
  const who = userLabel(user);
  // Fixed when the dialog opens: the card read again after the change (while the dialog fades out) must
  // not turn «Сделать» into «Снять» under a second click.
  const [asked, setAsked] = useState<{ open: boolean; grant: boolean }>({ open, grant: !user.admin });
  if (open !== asked.open) setAsked({ open, grant: open ? !user.admin : asked.grant });
  const grant = open && !asked.open ? !user.admin : asked.grant;
  return (
    <AppDialog
      open={open}
      onClose={onClose}
      title={grant ? 'Сделать администратором?' : 'Снять права администратора?'}
      actions={
        <>
          <Button onClick={onClose}>Отмена</Button>
          <Button
            variant="contained"
            color={grant ? 'primary' : 'error'}
            disabled={setAdmin.isPending || grant === user.admin}
            onClick={() =>
              setAdmin.mutateAsync({ admin: grant, about: `Сделать администратором ${userRef(user)}` }).then(
                () => {
                  showSnackbar(grant ? `${userSubject(user)} теперь администратор` : `${userSubject(user)} больше не администратор`);
                  if (stillShown()) onClose();
                },
                (e: Error) => {
                  if (!cancelledHere(e, stillShown)) alert(grant ? `${userSubject(user)} не стал администратором` : `Права администратора у пользователя ${who} не сняты`, [e.message], UNTIL_CLOSED);
                },
              )
            }
          >
            {grant ? 'Сделать' : 'Снять'}
          </Button>
        </>
      }
    >
      <Typography>
        {grant
          ? `${userSubject(user)} получит доступ ко всему разделу администрирования: заявкам, балансам, пользователям.`
          : `${userSubject(user)} потеряет доступ к разделу администрирования.`}
      </Typography>
    </AppDialog>
  );
}
