import { type AdminGamesserver, FIELD_MESSAGES, type GamesserverInput, GamesserverInputSchema } from '@adena/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import FormControlLabel from '@mui/material/FormControlLabel';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useId, useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useUi } from '../../../lib/ui-store';
import { formatAmount, formatShort } from '../../../utils/format-amount';
import { amountTooBig, parseAmount } from '../../../utils/parse-amount';
import { useAdminGamesservers, useSaveGamesserver } from '../api/servers';
import { amountHint } from '../utils/amount-hint';

type Dir = 'input' | 'output';
type Cur = '1' | '2';
const LIMIT_ROWS: Array<[Dir, Cur, string]> = [
  ['input', '1', 'Пополнение, адена'],
  ['input', '2', 'Пополнение, монеты'],
  ['output', '1', 'Вывод, адена'],
  ['output', '2', 'Вывод, монеты'],
];

interface FormState {
  name: string;
  active: boolean;
  sort_order: string;
  cashier_nick: string;
  code_fee_bp: string;
  vip_code_fee_bp: string;
  min_nominal: string;
  standard_nominals: string;
  vip_price: string;
  vip_period_days: string;
  limits: Record<`${Dir}.${Cur}.${'min' | 'max'}`, string>;
}

const EMPTY_LIMITS = { min: '', max: '' };
const adena = formatShort;
const coins = formatAmount;

/**
 * The form's text for a server (a new one's defaults for null). Amounts as the list writes them: adena in players'
 * shorthand («1кк», «1,5ккк»), coins grouped («1 000»); one shorthand cannot write exactly is written in full
 * (formatShort). toInput reads each back to the very same number (the round trip is tested).
 */
export function toForm(s: AdminGamesserver | null): FormState {
  const show = (c: Cur) => (c === '1' ? adena : coins);
  const lim = (d: Dir, c: Cur) => (s ? { min: show(c)(s.limits[d][c].min), max: show(c)(s.limits[d][c].max) } : EMPTY_LIMITS);
  const limits = {} as FormState['limits'];
  for (const [d, c] of LIMIT_ROWS) {
    limits[`${d}.${c}.min`] = lim(d, c).min;
    limits[`${d}.${c}.max`] = lim(d, c).max;
  }
  return {
    name: s?.name ?? '',
    active: s?.active ?? true,
    sort_order: String(s?.sort_order ?? 0),
    cashier_nick: s?.cashier_nick ?? '',
    code_fee_bp: String(s?.code_fee_bp ?? 300),
    vip_code_fee_bp: String(s?.vip_code_fee_bp ?? 100),
    min_nominal: s ? adena(s.min_nominal) : '1кк',
    standard_nominals: s ? s.standard_nominals.map(adena).join(', ') : '',
    vip_price: s ? coins(s.vip_price) : '',
    vip_period_days: String(s?.vip_period_days ?? 30),
    limits,
  };
}

// An unreadable entry goes to the schema as it is, so the message is the schema's own (one too big to send is
// said so where the field's error is shown).
const amount = (text: string) => parseAmount(text) ?? (text.trim() === '' ? undefined : text);
const int = (text: string) => (text.trim() === '' ? undefined : /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text);

// A comma between nominals is followed by a space (or comes after «к»); one inside «1,5кк» is a decimal mark.
const nominalTexts = (text: string) =>
  text
    .split(/[;\n]+|,\s+|(?<=[кkКK]),/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The form's text as the contract's input; an unreadable entry left as it is, for the schema to name. */
export function toInput(f: FormState): unknown {
  const limit = (d: Dir, c: Cur) => ({ min: amount(f.limits[`${d}.${c}.min`]), max: amount(f.limits[`${d}.${c}.max`]) });
  return {
    name: f.name,
    active: f.active,
    sort_order: int(f.sort_order),
    cashier_nick: f.cashier_nick,
    code_fee_bp: int(f.code_fee_bp),
    vip_code_fee_bp: int(f.vip_code_fee_bp),
    min_nominal: amount(f.min_nominal),
    standard_nominals: nominalTexts(f.standard_nominals).map(amount),
    vip_price: amount(f.vip_price),
    vip_period_days: int(f.vip_period_days),
    limits: { input: { '1': limit('input', '1'), '2': limit('input', '2') }, output: { '1': limit('output', '1'), '2': limit('output', '2') } },
  };
}

/**
 * An edit sends only what the operator changed here (limits as a whole): a field sent as the form read
 * it would put back what another operator changed since, the server's visibility above all (hidden meanwhile,
 * shown again by a save of the cashier's nick). Compared with the server as the form opened.
 */
function changedFields(input: GamesserverInput, server: AdminGamesserver): Partial<GamesserverInput> {
  // Visibility is never sent from an edit: it is the list's switch, which asks first.
  const { active: _visibility, ...fields } = input;
  const before = GamesserverInputSchema.safeParse(toInput(toForm(server)));
  if (!before.success) return fields;
  const changed: Partial<GamesserverInput> = {};
  for (const key of Object.keys(fields) as Array<keyof typeof fields>) {
    if (JSON.stringify(input[key]) !== JSON.stringify(before.data[key])) Object.assign(changed, { [key]: input[key] });
  }
  return changed;
}

const FIELD_LABELS: Record<Exclude<keyof FormState, 'active'>, string> = {
  name: 'название',
  sort_order: 'порядок',
  cashier_nick: 'ник кассира',
  code_fee_bp: 'комиссия',
  vip_code_fee_bp: 'комиссия для VIP',
  min_nominal: 'минимальный номинал',
  standard_nominals: 'стандартные номиналы',
  vip_price: 'цена VIP',
  vip_period_days: 'срок VIP',
  limits: 'лимиты',
};
const sameField = (a: FormState, b: FormState, k: keyof FormState) => JSON.stringify(a[k]) === JSON.stringify(b[k]);

/**
 * Another operator's save while this form was open: the fields they changed (visibility aside, which
 * this form does not send), and the form moved onto the server as it is now, keeping what this
 * operator changed here.
 */
function changedMeanwhile(form: FormState, base: AdminGamesserver, latest: AdminGamesserver) {
  const [was, now] = [toForm(base), toForm(latest)];
  const keys = (Object.keys(FIELD_LABELS) as Array<keyof typeof FIELD_LABELS>).filter((k) => !sameField(was, now, k));
  // Visibility is not this form's (the list's switch): always as the server is now, so a save never shows again
  // a server hidden meanwhile. Limits are taken one by one: this operator's edit of one keeps the others' new values.
  const rebased = { ...form, active: now.active, limits: { ...form.limits } };
  for (const k of keys) if (k !== 'limits' && sameField(form, was, k)) Object.assign(rebased, { [k]: now[k] });
  for (const l of Object.keys(form.limits) as Array<keyof FormState['limits']>) if (form.limits[l] === was.limits[l]) rebased.limits[l] = now.limits[l];
  return { labels: keys.map((k) => FIELD_LABELS[k]), rebased };
}

const percent = (bp: string) => (/^\d+$/.test(bp.trim()) ? `= ${(Number(bp) / 100).toLocaleString('ru-RU')}%` : '100 б.п. = 1%');

/** Create (server null) or edit a game server; every rule is the contract's, checked here and on the server. */
export function ServerFormDialog(props: { open: boolean; server: AdminGamesserver | null; onClose(): void; onChanged?: () => void }) {
  return props.open ? <ServerForm {...props} /> : null;
}

function ServerForm({ server, onClose, onChanged }: { server: AdminGamesserver | null; onClose(): void; onChanged?: () => void }) {
  const [f, setF] = useState<FormState>(() => toForm(server));
  // The server as this form last took it; an edit sends what differs from it.
  const [base, setBase] = useState(server);
  const latest = useAdminGamesservers().data?.find((s) => s.id === base?.id);
  const meanwhile = base && latest ? changedMeanwhile(f, base, latest) : null;
  const errors = useFormErrors();
  const limitsId = useId();
  const { create, update } = useSaveGamesserver(onChanged);
  const showSnackbar = useUi((s) => s.showSnackbar);
  // Once anything was changed, a click beside the form no longer throws the edits away.
  const [changed, setChanged] = useState(false);
  const set = (patch: Partial<FormState>) => {
    setChanged(true);
    setF((x) => ({ ...x, ...patch }));
  };
  const fieldErr = (name: string) =>
    errors.fieldError(name) ?? (name === 'standard_nominals' ? Object.entries(errors.errors).find(([k]) => k.startsWith('standard_nominals.'))?.[1][0] : undefined);
  // A whole amount past 2^53 − 1 is «too big» (the schema, handed its text, would say «not a whole number»).
  const tooBig = (name: string) => {
    const text = name.startsWith('limits.') ? f.limits[name.slice(7) as keyof FormState['limits']] : name === 'min_nominal' || name === 'vip_price' ? f[name] : '';
    if (name === 'standard_nominals') return nominalTexts(f.standard_nominals).some(amountTooBig);
    return text !== undefined && amountTooBig(text);
  };
  const err = (name: string) => (fieldErr(name) && tooBig(name) ? FIELD_MESSAGES.amountMax : fieldErr(name));
  const pending = create.isPending || update.isPending;
  // Not closed while a save is on its way: a refusal would come to a form no longer there and be said nowhere.
  const close = () => {
    if (!pending) onClose();
  };

  const submit = () => {
    errors.clear();
    const input: GamesserverInput | null = errors.validate(GamesserverInputSchema, toInput(f));
    if (!input) return;
    const changed = base ? changedFields(input, base) : null;
    if (changed && Object.keys(changed).length === 0) {
      onClose();
      return;
    }
    const done = {
      onSuccess: () => {
        showSnackbar(server ? 'Настройки сервера сохранены' : 'Сервер добавлен');
        onClose();
      },
      onError: (e: unknown) => errors.fromError(e),
    };
    if (base && changed) update.mutate({ id: base.id, body: changed }, done);
    else create.mutate(input, done);
  };

  const text = (name: keyof Omit<FormState, 'limits' | 'active'>, label: string, helper?: string, extra?: object) => (
    <TextField
      label={label}
      value={f[name]}
      onChange={(e) => set({ [name]: e.target.value })}
      error={Boolean(err(name))}
      helperText={err(name) ?? helper}
      fullWidth
      size="small"
      autoComplete="off"
      {...extra}
    />
  );
  return (
    <AppDialog
      open
      onClose={close}
      keepOnBackdrop={changed}
      title={server ? `Сервер «${server.name}»` : 'Новый игровой сервер'}
      testId="server-form-dialog"
      actions={
        <>
          <Button onClick={close} disabled={pending}>
            Отмена
          </Button>
          <Button variant="contained" onClick={submit} disabled={pending}>
            {server ? 'Сохранить' : 'Добавить'}
          </Button>
        </>
      }
    >
      <Stack spacing={2} sx={{ pt: 1 }} component="form" noValidate onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}>
        {errors.formError && <Alert severity="error">{errors.formError}</Alert>}
        {meanwhile && meanwhile.labels.length > 0 && latest && (
          <Alert
            severity="warning"
            data-testid="server-changed-meanwhile"
            action={
              <Button
                color="inherit"
                size="small"
                sx={{ whiteSpace: 'nowrap' }}
                onClick={() => {
                  errors.clear();
                  setF(meanwhile.rebased);
                  setBase(latest);
                }}
              >
                Взять новые
              </Button>
            }
          >
            Пока форма была открыта, другой оператор изменил: {meanwhile.labels.join(', ')}. «Взять новые» подставит их значения, ваши правки
            останутся.
          </Alert>
        )}
        {text('name', 'Название')}
        <Stack direction="row" spacing={1.5}>
          {text('cashier_nick', 'Ник кассира', 'Персонаж сервиса, принимающий адену')}
          {text('sort_order', 'Порядок', 'Меньше — выше в списке', { sx: { maxWidth: 130 } })}
        </Stack>
        {server ? (
          // Hiding goes through the list's switch, which asks first and says what players hold there.
          <Typography variant="body2" color="textSecondary">
            {latest?.active ?? server.active ? 'Виден игрокам.' : 'Скрыт от игроков.'} Скрыть или показать — переключателем «Виден» в списке.
          </Typography>
        ) : (
          <FormControlLabel control={<Switch checked={f.active} onChange={(e) => set({ active: e.target.checked })} />} label="Виден игрокам" />
        )}

        <Typography variant="subtitle2">Комиссия за коды</Typography>
        <Stack direction="row" spacing={1.5}>
          {text('code_fee_bp', 'Обычная, б.п.', percent(f.code_fee_bp), { slotProps: { htmlInput: { inputMode: 'numeric' } } })}
          {text('vip_code_fee_bp', 'Для VIP, б.п.', percent(f.vip_code_fee_bp), { slotProps: { htmlInput: { inputMode: 'numeric' } } })}
        </Stack>
        {text('min_nominal', 'Минимальный номинал кода', amountHint(f.min_nominal, 1) ?? 'Можно писать 1кк')}
        {text('standard_nominals', 'Стандартные номиналы', 'Через запятую, например: 1кк, 5кк, 10кк')}

        <Typography variant="subtitle2">VIP</Typography>
        <Stack direction="row" spacing={1.5}>
          {text('vip_price', 'Цена в монетах', amountHint(f.vip_price, 2) ?? 'Монеты эйнхасад')}
          {text('vip_period_days', 'Срок, дней')}
        </Stack>

        <Typography variant="subtitle2">Лимиты одной заявки</Typography>
        {LIMIT_ROWS.map(([d, c, label]) => (
          // The row's name above its pair, the fields «от» and «до»: «Пополнение, монеты: от» as each field's label was
          // cut to «Пополнение, монеты…» in a 500 px dialog. Each input keeps the whole name for a screen reader.
          <Stack key={`${d}.${c}`} spacing={0.75} role="group" aria-labelledby={`${limitsId}-${d}-${c}`} data-testid="limit-row">
            <Typography variant="body2" color="textSecondary" id={`${limitsId}-${d}-${c}`}>
              {label}
            </Typography>
            <Stack direction="row" spacing={1.5} sx={{ alignItems: 'flex-start' }}>
              {(['min', 'max'] as const).map((side) => {
                const key = `${d}.${c}.${side}` as const;
                const name = `limits.${key}`;
                return (
                  <TextField
                    key={side}
                    size="small"
                    fullWidth
                    autoComplete="off"
                    label={side === 'min' ? 'от' : 'до'}
                    value={f.limits[key]}
                    onChange={(e) => set({ limits: { ...f.limits, [key]: e.target.value } })}
                    error={Boolean(err(name))}
                    helperText={err(name) ?? amountHint(f.limits[key], c === '1' ? 1 : 2)}
                    slotProps={{ htmlInput: { 'aria-label': `${label}: ${side === 'min' ? 'от' : 'до'}` } }}
                  />
                );
              })}
            </Stack>
          </Stack>
        ))}
        <button type="submit" hidden />
      </Stack>
    </AppDialog>
  );
}
