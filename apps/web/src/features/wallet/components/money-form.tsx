import { type CurrencyType, type Gamesserver, limitRefusalText } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { AmountField } from '../../../components/amount-field';
import { ApiError } from '../../../lib/api-client';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { formatAmount, formatShort } from '../../../utils/format-amount';
import { amountText, currencyWord } from '../../../utils/plural';
import { parseAmount } from '../../../utils/parse-amount';
import { useSaveNick } from '../api/save-nick';
import { type DialogState, useUi } from '../../../lib/ui-store';
import { useRequestKey } from '../../../hooks/use-request-key';

type Direction = 'input' | 'output';

// Adena is counted in millions and written «1,5кк»; coins of Einhasad come in hundreds and thousands
// and are written out (parseAmount still reads «2к», but nobody writes coins that way).
const amountShown = (n: number, currency: CurrencyType) => (currency === 1 ? formatShort(n) : formatAmount(n));

/** A server's limits on one request for this direction and currency, as GET /api/gamesservers gives them. */
export const amountLimits = (server: Gamesserver, direction: Direction, currency: CurrencyType) => server.limits[direction][String(currency) as '1' | '2'];

/**
 * An amount outside those limits, refused under «Сумма» before it is sent, in the words of the server's 422
 * (the contract's limitRefusalText): a request sent anyway would be refused, and a withdrawal's TOTP code spent
 * on that refusal (the server checks the code before the limits).
 */
export function limitRefusal(limits: { min: number; max: number }, currency: CurrencyType, amount: number): string | null {
  return amount >= limits.min && amount <= limits.max ? null : limitRefusalText(limits, currency);
}

function limitsText(server: Gamesserver, direction: Direction, currency: CurrencyType) {
  const l = amountLimits(server, direction, currency);
  return `${direction === 'input' ? 'Пополнение' : 'Вывод'}: от ${amountShown(l.min, currency)} до ${amountShown(l.max, currency)} ${currencyWord(l.max, currency, 'gen')} за заявку`;
}

const AMOUNT_HINT: Record<CurrencyType, string> = {
  1: 'Можно сокращённо: 1,5кк = 1 500 000',
  2: 'Целое число монет, например 150',
};

/**
 * The state of the put and take form: the amount as typed, the nick when the wallet has none (on a
 * phone the dialog covers the card's own nick field, and the request needs it: the operator finds
 * the transfer by it), the Idempotency-Key of what it sends (kept while in doubt, in
 * hooks/use-request-key.ts), and the errors on their fields.
 */
export function useMoneyForm<T>(options: {
  /** What the request is for (the Idempotency-Key's operation): 'put' or 'take'. */
  operation: 'put' | 'take';
  gameServerId: number;
  /** With the server and the amount, what the key was sent for: another of them is another request. */
  currency: CurrencyType;
  nick: string | null;
  /** The server's limits shown in the form (amountLimits): an amount outside them is refused under «Сумма», unsent. */
  limits?: { min: number; max: number };
  /**
   * Makes the request with the amount read from the players' shorthand (only the call: what follows goes in
   * onSent). `opening` is the dialog the press came from (read at the press, not when the call starts, which
   * may be after a nick save): its answer acts on that opening only. `again`: the same request is in doubt (a try
   * running, or its answer lost), so this one goes with its key, and only the server knows whether it went through.
   */
  send(amount: number, idempotencyKey: string, opening: DialogState, again: boolean): Promise<T>;
  /**
   * The request went through. Called after its key was dropped (so `clear` empties the fields), and
   * also when the answer comes after the dialog was closed: it must not close or replace a dialog
   * opened meanwhile.
   */
  onSent(result: T, amount: number): void;
  /** Takes an error over (true), or leaves it to be shown on the fields (false). */
  onError?(err: unknown, amount: number): boolean;
}) {
  const { operation, gameServerId, currency, nick, limits, send, onSent, onError } = options;
  const refusal = (amount: number) => (limits ? limitRefusal(limits, currency, amount) : null);
  const qc = useQueryClient();
  const errors = useFormErrors();
  const [amountText, setAmountText] = useState('');
  const [nickText, setNickText] = useState('');
  const [busy, setBusy] = useState(false);
  const keys = useRequestKey(operation);
  const saveNick = useSaveNick();
  // What the last request sent, and what the fields hold now (read by a late answer's handler).
  const sentFields = useRef<{ amountText: string; nickText: string } | null>(null);
  const shown = useRef({ amountText, nickText });
  shown.current = { amountText, nickText };

  /**
   * Empties the fields for the next opening; while the last request is in doubt (still running, or
   * its answer lost) it keeps them, and its key stays kept, so sending the same again is answered
   * from the first try instead of moving money twice.
   */
  const clear = () => {
    errors.clear();
    if (keys.uncertain) return;
    setAmountText('');
    setNickText('');
  };

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    errors.clear();
    const amount = parseAmount(amountText);
    // Said under «Сумма» as it is typed (AmountField's `check`); the button is off, and Enter sends nothing either.
    if (amount === null || amount <= 0 || refusal(amount) !== null) return;
    const opening = useUi.getState().dialog;
    sentFields.current = { amountText, nickText };
    setBusy(true);
    try {
      // The nick typed here is saved first; its 422 lands on the nick field.
      if (!nick) {
        await saveNick.mutateAsync({ gameServerId, nick: nickText.trim() });
        // Closed while the nick was being saved (maybe opened again since, for another server): the player
        // cancelled before any money call was sent, so none is. The nick stays saved, which is harmless.
        if (useUi.getState().dialog !== opening) return;
      }
      const request = `${gameServerId}:${currency}:${amount}`;
      const again = keys.keeps(request);
      const result = await keys.send(request, (key) => send(amount, key, opening, again));
      onSent(result, amount);
    } catch (err) {
      // A refusal that comes after this opening was closed (the dialog maybe opened again since, for
      // another server or amount) is not shown on what is open now.
      if (useUi.getState().dialog !== opening) return;
      // An amount the server refused (its limits changed since the list was read, say): the list is read again,
      // so the limits shown and checked under «Сумма» are the server's.
      if (err instanceof ApiError && err.status === 422 && err.fieldErrors.amount) void qc.invalidateQueries({ queryKey: ['gamesservers'] });
      if (!onError?.(err, amount)) errors.fromError(err, nick ? ['amount'] : ['amount', 'nick']);
    } finally {
      setBusy(false);
    }
  }

  const typedAmount = parseAmount(amountText) ?? 0;
  return {
    amountText,
    /** A server's error under «Сумма» was about the amount sent: the player typing another one clears it (and the «= …» reading shows again). */
    setAmountText(text: string) {
      if (errors.fieldError('amount')) errors.clear();
      setAmountText(text);
    },
    nickText,
    setNickText(text: string) {
      if (errors.fieldError('nick')) errors.clear();
      setNickText(text);
    },
    errors,
    clear,
    /**
     * The fields still hold what the last request sent, unedited: kept while it was in doubt and shown again
     * in a later opening. Its answer, once known, must not leave them there for a press that sends it again
     * under a new key (a second withdrawal, a second deposit request).
     */
    unchangedSinceSent: () =>
      sentFields.current !== null && sentFields.current.amountText === shown.current.amountText && sentFields.current.nickText === shown.current.nickText,
    submit,
    /** Something is typed: a click beside the dialog must not throw it away (Escape and «Отмена» still close). */
    typed: amountText.trim() !== '' || nickText.trim() !== '',
    /** An amount refused before it is sent (outside the server's limits), in the server's words; null when it may go. */
    check: refusal,
    canSubmit: !busy && typedAmount > 0 && refusal(typedAmount) === null && (Boolean(nick) || nickText.trim() !== ''),
  };
}

/**
 * The server a put or take dialog acts on: the one the page showed when this opening began, kept
 * until the next opening, so a server chosen meanwhile in another tab never moves the request, its
 * limits or its title (the page also holds its choice while a dialog is open: selected-server.ts).
 */
/** The opening of a money dialog a request was sent from (its dialog object, new at each opening) and its server. */
export interface SentFrom {
  opening: DialogState;
  serverName: string;
  gameServerId: number;
  currency: CurrencyType;
}

/** Whether a dialog of this kind is open now for the server and currency a request was sent for. */
export const openFor = (name: 'put' | 'take', from: SentFrom | null, openServerId: number) => {
  const d = useUi.getState().dialog;
  return from !== null && d.name === name && d.currency === from.currency && openServerId === from.gameServerId;
};

/** Whether that opening is still the dialog shown: a late answer acts on it, never on one opened since. */
export const stillOpen = (from: SentFrom | null) => from !== null && useUi.getState().dialog === from.opening;

export function useServerAtOpening(open: boolean, dialog: DialogState, server: Gamesserver): Gamesserver {
  const [opening, setOpening] = useState<{ dialog: DialogState; server: Gamesserver } | null>(null);
  if (open && opening?.dialog !== dialog) setOpening({ dialog, server });
  // Each opening reads the list of servers again: an amount is refused under «Сумма» by the limits it gives, and an
  // operator may have changed them since the page read it (a list kept up to a minute, longer on a page left open).
  const qc = useQueryClient();
  const opened = open ? dialog : null;
  useEffect(() => {
    if (opened) void qc.invalidateQueries({ queryKey: ['gamesservers'] });
  }, [opened, qc]);
  // The page's copy while it is the same server: its limits are the freshest read.
  return !opening || opening.server.id === server.id ? server : opening.server;
}

export type MoneyFormState = ReturnType<typeof useMoneyForm<unknown>>;

/** The form the put and take dialogs share: the nick when missing, the amount, the limits (and what is available), then the dialog's own note. */
export function MoneyForm(props: {
  id: string;
  form: MoneyFormState;
  server: Gamesserver;
  direction: Direction;
  currency: CurrencyType;
  nick: string | null;
  nickHelper: string;
  /** Shown under the limits when known (withdrawals). */
  available?: number | null;
  children?: ReactNode;
}) {
  const { form, currency } = props;
  const nickError = form.errors.fieldError('nick');
  return (
    <Stack component="form" id={props.id} spacing={2} onSubmit={form.submit} noValidate sx={{ pt: 1 }}>
      {form.errors.formError && <Alert severity="error">{form.errors.formError}</Alert>}
      {!props.nick && (
        <TextField
          label="Ник персонажа"
          value={form.nickText}
          onChange={(e) => form.setNickText(e.target.value)}
          autoComplete="nickname"
          fullWidth
          error={Boolean(nickError)}
          helperText={nickError ?? props.nickHelper}
          slotProps={{ htmlInput: { 'data-testid': 'dialog-nick-input' } }}
        />
      )}
      <AmountField
        label="Сумма"
        value={form.amountText}
        onChange={form.setAmountText}
        unit={currency}
        error={form.errors.fieldError('amount')}
        hint={AMOUNT_HINT[currency]}
        autoFocus={Boolean(props.nick)}
        check={form.check}
      />
      <Typography variant="body2" color="textSecondary" data-testid="limits">
        {limitsText(props.server, props.direction, currency)}
        {props.available != null && (
          <>
            <br />
            Доступно: <b data-testid="available">{amountText(props.available, currency, '\u00a0')}</b>
          </>
        )}
      </Typography>
      {props.children}
    </Stack>
  );
}
