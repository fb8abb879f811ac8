import { formatAmount, formatShort } from '../../../utils/format-amount';
import { amountText } from '../../../utils/plural';
import { AUDIT_OPERATOR_FIELDS, AUDIT_STATUSES } from './actions';

const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'medium' });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Fields that hold adena (a code's price given back, a server's smallest nominal): with their unit. */
const ADENA_KEYS = new Set(['min_nominal', 'refunded']);
/** Fields that hold an amount whose unit the label names or the entry does not say: digits grouped. */
const NUMBER_KEYS = new Set(['amount', 'vip_price']);

/** A game server's limits, in the order and words of its settings form. */
const LIMIT_ROWS = [
  ['input', '1', 'Пополнение, адена'],
  ['input', '2', 'Пополнение, монеты'],
  ['output', '1', 'Вывод, адена'],
  ['output', '2', 'Вывод, монеты'],
] as const;

/** An amount as the server sends it in the log: a number, or a bigint written as a string («1010000»). */
function amountOf(v: unknown): number | bigint | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,30}$/.test(v)) return BigInt(v);
  return null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** «Пополнение, адена: 1кк–10ккк; …»: adena in players' shorthand, coins in whole numbers. Null when the shape is not a limits object. */
function limitsText(v: unknown): string | null {
  if (!isRecord(v)) return null;
  const parts: string[] = [];
  for (const [direction, currency, label] of LIMIT_ROWS) {
    const dir = v[direction];
    const l = isRecord(dir) ? dir[currency] : undefined;
    if (!isRecord(l) || typeof l.min !== 'number' || typeof l.max !== 'number') continue;
    const show = currency === '1' ? formatShort : formatAmount;
    parts.push(`${label}: ${show(l.min)}–${show(l.max)}`);
  }
  return parts.length > 0 ? parts.join('; ') : null;
}

/** «03.12.2026,\u00a015:24:28»: a date and its time held together by a no-break space, so a line never ends between them. */
const dateText = (iso: string) => dateTime.format(new Date(iso)).replace(/\s/g, '\u00a0');

/** Anything else: a list with commas, an object as «ключ: значение; …», never raw JSON. */
function generic(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') return v ? 'да' : 'нет';
  if (typeof v === 'string') return ISO.test(v) ? dateText(v) : v;
  if (Array.isArray(v)) return v.length === 0 ? '—' : v.map(generic).join(', ');
  if (isRecord(v)) {
    const entries = Object.entries(v);
    return entries.length === 0 ? '—' : entries.map(([k, x]) => `${k}: ${generic(x)}`).join('; ');
  }
  return String(v);
}

/** A user's id as the log keeps it: a number, or digits in a string. */
function userIdOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v) && Number(v) > 0) return Number(v);
  return null;
}

/** Operators' names by user id (operatorNames). */
export type OperatorNames = ReadonlyMap<number, string>;

/**
 * Who each operator is: the authors of the log's entries (`admin_id` → their name, or their e-mail when they have
 * none), and the users of the operators list (api/operators), asked for only when an entry names someone else.
 */
export function operatorNames(
  entries: ReadonlyArray<{ admin_id: number; admin_name: string; admin_email: string | null }>,
  users: ReadonlyArray<{ id: number; name: string; email: string | null }> = [],
): OperatorNames {
  const names = new Map<number, string>();
  for (const u of users) if (u.name || u.email) names.set(u.id, u.name || u.email!);
  for (const e of entries) if (e.admin_name || e.admin_email) names.set(e.admin_id, e.admin_name || e.admin_email!);
  return names;
}

/** Every operator's id the entries' before and after hold (claimed_by, processed_by, claim_dropped_by). */
export function operatorIdsIn(entries: ReadonlyArray<{ before: unknown; after: unknown }>): number[] {
  const ids = new Set<number>();
  for (const e of entries) {
    for (const side of [e.before, e.after]) {
      if (!isRecord(side)) continue;
      for (const key of AUDIT_OPERATOR_FIELDS) {
        const id = userIdOf(side[key]);
        if (id !== null) ids.add(id);
      }
    }
  }
  return [...ids];
}

/**
 * One value of an audit entry's before or after, as an operator reads it: a status in words, «да»/«нет»,
 * a date, limits and nominals as the server list shows them, amounts grouped (adena with its unit), an operator
 * by name (`names`), «оператор №5» when the name is not known.
 */
export function auditValue(entityType: string, key: string, v: unknown, names?: OperatorNames): string {
  if (v === null || v === undefined) return '—';
  if (AUDIT_OPERATOR_FIELDS.has(key)) {
    const id = userIdOf(v);
    if (id !== null) return names?.get(id) || `оператор №${id}`;
  }
  if (key === 'status' && typeof v === 'string') return AUDIT_STATUSES[entityType]?.[v] ?? v;
  if (key === 'limits') {
    const text = limitsText(v);
    if (text !== null) return text;
  }
  if (key === 'standard_nominals' && Array.isArray(v) && v.every((n) => typeof n === 'number')) {
    return v.length === 0 ? '—' : v.map(formatShort).join(', ');
  }
  const amount = ADENA_KEYS.has(key) || NUMBER_KEYS.has(key) ? amountOf(v) : null;
  if (amount !== null) return ADENA_KEYS.has(key) && amount >= 0 ? amountText(amount, 1, '\u00a0') : formatAmount(amount);
  return generic(v);
}
