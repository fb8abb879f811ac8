import type { Code } from '@adena/contract';
import { ALERT_TIMEOUT_MS } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { AppDialog } from '../../../components/app-dialog';
import { CopyButton } from '../../../components/copy-button';
import { needsStepUp } from '../../../lib/step-up';
import { type DialogState, useUi } from '../../../lib/ui-store';
import { useEffect, useRef } from 'react';
import { useCancelCode, useCodeStanding } from '../api/cancel-code';
import { useRevealCodes } from '../api/price-data';
import { aden, adenAcc, adenShort, alertContent, CODE_STATUS, codeTag, dateTime } from './code-format';
import { agree } from '../../../utils/agree';
import { useRequestKey } from '../../../hooks/use-request-key';
import { useFocusAfterRemoval } from '../../../hooks/use-focus-after-removal';

const MONO = 'ui-monospace, "SF Mono", Menlo, Consolas, monospace';

export function CodeItem({ code }: { code: Code }) {
  const openDialog = useUi((s) => s.openDialog);
  const status = CODE_STATUS[code.status];
  return (
    <ListItem
      divider
      data-testid="my-code"
      data-code-id={code.id}
      data-status={code.status}
      sx={{ px: 0, display: 'block' }}
      data-focus-row="codes"
      data-focus-key={code.id}
    >
      <Stack direction="row" useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1 }}>
        <Typography sx={{ fontWeight: 700 }}>{adenShort(code.nominal)}</Typography>
        <Chip size="small" label={status.label} color={status.color} variant="outlined" data-testid="code-status" />
        {code.status === 'active' && (
          <Button
            size="small"
            color="error"
            sx={{ ml: 'auto', minWidth: 0 }}
            onClick={() => openDialog({ name: 'cancel_code', gameServerId: code.gamesserver_id, codeId: code.id, nominal: code.nominal, sert: code.sert })}
            aria-label={`Отменить код ${codeTag(code)} на ${adenAcc(code.nominal)}`}
            data-focus-action="cancel"
          >
            Отменить
          </Button>
        )}
      </Stack>
      <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center', minWidth: 0 }}>
        <Typography
          component="code"
          sx={{ fontFamily: MONO, fontSize: '0.95rem', overflowWrap: 'anywhere', color: code.sert_masked ? 'text.secondary' : undefined }}
          data-testid="code-sert"
          data-masked={code.sert_masked ? 'true' : undefined}
        >
          {code.sert}
        </Typography>
        {/* Only an open code is worth passing on: an activated or cancelled one no longer works. */}
        {code.status === 'active' && code.sert && !code.sert_masked && <CopyButton text={code.sert} label="Скопировать код" />}
      </Stack>
      <Typography variant="body2" color="textSecondary">
        {dateTime.format(new Date(code.created_at))}
        {code.pricekod_id !== null ? ' · свой номинал' : ''}
        {code.activated_at ? ` · активирован ${dateTime.format(new Date(code.activated_at))}` : ''}
      </Typography>
    </ListItem>
  );
}

/**
 * With TOTP on, the open codes come masked until the player gives a code from the authenticator. `asking`: whether the
 * player's own press is under way (the texts it brings move focus, see useFocusAfterReveal).
 */
function MaskedCodesNote({ gameServerId, asking }: { gameServerId: number; asking(on: boolean): void }) {
  const reveal = useRevealCodes(gameServerId);
  const alert = useUi((s) => s.alert);
  return (
    <Stack direction="row" useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap', gap: 1, mb: 1 }} data-testid="masked-codes-note">
      <Typography variant="body2" color="textSecondary" sx={{ flex: '1 1 16rem' }}>
        У вас включён вход с кодом, поэтому тексты кодов скрыты. Покажем их после кода из приложения — на 10 минут.
      </Typography>
      <Button
        size="small"
        variant="outlined"
        disabled={reveal.isPending}
        onClick={() => {
          asking(true);
          reveal.mutate(undefined, {
            // Cancelled (no code given), or refused: nothing comes of this press.
            onSuccess: (data) => {
              if (!data) asking(false);
            },
            onError: (err) => {
              asking(false);
              if (needsStepUp(err)) return;
              const { text, errors } = alertContent(err);
              alert(text, errors);
            },
          });
        }}
      >
        Показать коды
      </Button>
    </Stack>
  );
}

/** How long after the codes were shown focus is looked after: the step-up dialog closes (and lets focus go) meanwhile. */
const REVEAL_FOCUS_MS = 2_000;

/**
 * «Показать коды» leaves with its note once the texts come: focus, which the step-up dialog gives back to that
 * button as it closes, would drop to <body>. It goes to the first code's «Скопировать код» (what the player asked
 * the texts for) once no dialog holds it, unless the player has put it somewhere meanwhile. Only after that button
 * was pressed (`asked`): texts that come unmasked otherwise (a step-up in another call) move nothing.
 */
function useFocusAfterReveal(masked: boolean, list: React.RefObject<HTMLUListElement | null>, asked: React.RefObject<boolean>) {
  const was = useRef(masked);
  useEffect(() => {
    const revealed = was.current && !masked && asked.current;
    was.current = masked;
    if (!masked) asked.current = false;
    if (!revealed) return;
    const until = Date.now() + REVEAL_FOCUS_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const place = () => {
      const a = document.activeElement as HTMLElement | null;
      const lost = !a || a === document.body || !a.isConnected;
      if (lost) {
        list.current?.querySelector<HTMLElement>('button[aria-label="Скопировать код"]')?.focus();
        return;
      }
      if (a.closest('.MuiModal-root, [role="dialog"]') && Date.now() < until) timer = setTimeout(place, 50);
    };
    place();
    return () => clearTimeout(timer);
  }, [masked, list, asked]);
}

/** The user's open codes: kods with svoy_variant_kods merged in, statuses kept live by realtime events. */
export function MyCodesList({ codes, gameServerId }: { codes: Code[]; gameServerId: number }) {
  const masked = codes.some((c) => c.sert_masked);
  const list = useRef<HTMLUListElement>(null);
  const asked = useRef(false);
  useFocusAfterReveal(masked, list, asked);
  if (codes.length === 0) {
    return (
      <Typography color="textSecondary" data-testid="my-codes-empty" tabIndex={-1} data-focus-list="codes">
        Открытых кодов нет. Нажмите «Купить код» у номинала — код появится здесь.
      </Typography>
    );
  }
  return (
    <>
      {masked && (
        <MaskedCodesNote
          gameServerId={gameServerId}
          asking={(on) => {
            asked.current = on;
          }}
        />
      )}
      <List disablePadding data-testid="my-codes" ref={list}>
        {codes.map((c) => (
          <CodeItem key={c.id} code={c} />
        ))}
      </List>
    </>
  );
}

export function CancelCodeDialog() {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const snackbar = useUi((s) => s.showSnackbar);
  const alert = useUi((s) => s.alert);
  const cancel = useCancelCode();
  const keys = useRequestKey('code_cancel');
  const open = dialog.name === 'cancel_code';
  const d = open ? (dialog as Extract<DialogState, { name: 'cancel_code' }>) : null;
  // A code that stops being open while its dialog is (a buyer activated it, another tab cancelled it) has nothing
  // left to cancel: the dialog closes. Once «Отменить код» was pressed, the call's own answer decides instead (its
  // refusal, the code's new status, is said in an alert).
  const standing = useCodeStanding(d);
  // The cancelled code leaves the open codes (or, in «Все мои коды», loses its «Отменить»): focus goes to the next
  // code's «Отменить», the previous one's after the last, or to «Открытых кодов нет» once none is left.
  const focusFrom = useFocusAfterRemoval('codes', { busy: dialog.name !== 'none' });
  const listedIn = useRef<DialogState | null>(null);
  const sentIn = useRef<DialogState | null>(null);
  useEffect(() => {
    if (!d || sentIn.current === d) return;
    if (standing === 'listed') listedIn.current = d;
    else if (standing === 'closed' || listedIn.current === d) close();
  }, [d, standing, close]);
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Отменить код?"
      testId="cancel-code-dialog"
      actions={
        <>
          <Button onClick={close}>Не отменять</Button>
          <Button
            color="error"
            variant="contained"
            disabled={cancel.isPending}
            onClick={() => {
              if (!d) return;
              sentIn.current = d;
              const spot = focusFrom(d.codeId, 'cancel');
              // Whether this code's dialog is still open: an answer that comes after it was closed closes or opens nothing else.
              const stillOpen = () => {
                const now = useUi.getState().dialog;
                return now.name === 'cancel_code' && now.codeId === d.codeId;
              };
              void keys
                .send(`${d.codeId}`, (idempotencyKey) => cancel.mutateAsync({ id: d.codeId, gamesserver_id: d.gameServerId, idempotencyKey }))
                .then(
                  (r) => {
                    if (stillOpen()) close();
                    snackbar(`Код отменён, на баланс ${agree(r.summa, 'returned')} ${aden(r.summa)}`);
                    spot.done();
                  },
                  (err: unknown) => {
                    spot.back();
                    if (!stillOpen()) return;
                    const { text, errors } = alertContent(err);
                    alert(text, errors, ALERT_TIMEOUT_MS);
                  },
                );
            }}
          >
            Отменить код
          </Button>
        </>
      }
    >
      {d && (
        <Typography>
          Код <b style={{ fontFamily: MONO, overflowWrap: 'anywhere' }}>{d.sert}</b> на {adenAcc(d.nominal)} перестанет действовать, а его цена вернётся на
          баланс. Если вы уже передали код покупателю, он не сможет его активировать.
        </Typography>
      )}
    </AppDialog>
  );
}
