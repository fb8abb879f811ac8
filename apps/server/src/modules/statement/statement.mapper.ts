import type { StatementEntry, StatementKind } from '@adena/contract';
import { CURRENCIES } from '@adena/contract';
import { toNumber } from '../../lib/money';
import { maskSert } from '../../lib/sert';
import type { StatementRow } from './statement.repository';

/**
 * The ledger's transaction kinds (what the modules post) as the statement's kinds. Anything not
 * listed — a correction, test funding — is an `adjustment`.
 */
const KINDS: Record<string, StatementKind> = {
  deposit: 'deposit',
  withdrawal_hold: 'withdrawal',
  withdrawal_cancel: 'withdrawal_refund',
  withdrawal_reject: 'withdrawal_refund',
  code_issue: 'code_purchase',
  pricekod_create: 'code_purchase',
  pricekod_edit_issue: 'code_purchase',
  code_cancel: 'code_refund',
  code_cancel_admin: 'code_refund',
  pricekod_edit_refund: 'code_refund',
  pricekod_delete: 'code_refund',
  code_activation: 'code_activation',
  vip_purchase: 'vip',
};

export const statementKind = (txKind: string): StatementKind => KINDS[txKind] ?? 'adjustment';

/**
 * The Russian line of an entry: what happened, with the request's or set's number, or the code's
 * text masked as «Мои коды» shows it (the player never sees a code's id).
 */
export function describe(r: Pick<StatementRow, 'tx_kind' | 'ref_id' | 'sert'>): string {
  // A no-break space keeps the number with its word on a phone («заявка / №6» wrapped; walk 15).
  const n = r.sert ? ` ${maskSert(r.sert)}` : r.ref_id === null ? '' : `\u00a0№${r.ref_id}`;
  switch (r.tx_kind) {
    case 'deposit':
      return `Пополнение через кассира, заявка${n}`;
    case 'withdrawal_hold':
      return `Вывод через кассира, заявка${n}`;
    case 'withdrawal_cancel':
      return `Возврат: вы отменили вывод, заявка${n}`;
    case 'withdrawal_reject':
      return `Возврат: вывод отклонён, заявка${n}`;
    case 'code_issue':
      return `Покупка кода${n}`;
    case 'pricekod_create':
    case 'pricekod_edit_issue':
      return `Покупка кодов своего номинала, набор${n}`;
    case 'code_cancel':
      return `Возврат за отменённый код${n}`;
    case 'code_cancel_admin':
      return `Возврат: оператор отменил код${n}`;
    case 'pricekod_edit_refund':
    case 'pricekod_delete':
      return `Возврат за отменённые коды набора${n}`;
    case 'code_activation':
      return `Активация кода${n}`;
    case 'vip_purchase':
      return 'Покупка VIP-статуса';
    default:
      return 'Корректировка баланса';
  }
}

export const toStatementEntry = (r: StatementRow): StatementEntry => ({
  id: toNumber(BigInt(r.id)),
  at: new Date(r.at).toISOString(),
  kind: statementKind(r.tx_kind),
  currency_type: Number(r.currency_type) as 1 | 2,
  amount: toNumber(BigInt(r.amount)),
  balance_after: toNumber(BigInt(r.balance_after)),
  gamesserver_id: r.gamesserver_id,
  description: describe(r),
});

// ── CSV ──

// The zone is named: the screens show the device's time, the file Moscow's (the service's day, as `from` and `to` are).
const HEADERS = ['Дата (МСК)', 'Сервер', 'Валюта', 'Операция', 'Сумма', 'Остаток после', 'Описание'];
export const KIND_TITLES: Record<StatementKind, string> = {
  deposit: 'Пополнение',
  withdrawal: 'Вывод',
  withdrawal_refund: 'Возврат вывода',
  code_purchase: 'Покупка кода',
  code_refund: 'Возврат за код',
  code_activation: 'Активация кода',
  vip: 'VIP',
  adjustment: 'Корректировка',
};

/** The service's day is Moscow's (UTC+3 all year). */
export const TIME_ZONE = 'Europe/Moscow';
const dateTime = new Intl.DateTimeFormat('ru-RU', {
  timeZone: TIME_ZONE,
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/**
 * A text cell: quoted when it holds the separator, a quote or a line break; a leading = + - @
 * (a formula to Excel) is defused with an apostrophe.
 */
function textCell(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[;"\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const BOM = '\ufeff';

/** The file's start: a BOM (so Excel reads UTF-8) and the header line. */
export const csvHead = (): string => `${BOM}${HEADERS.join(';')}\r\n`;

/** Rows as the file's lines, each ending in CRLF: `;` between cells (Russian Excel's list separator). */
export function csvLines(rows: StatementRow[]): string {
  let out = '';
  for (const r of rows) {
    out += `${[
      textCell(dateTime.format(new Date(r.at)).replace(',', '')),
      textCell(r.gamesserver),
      textCell(CURRENCIES[Number(r.currency_type) as 1 | 2].title),
      textCell(KIND_TITLES[statementKind(r.tx_kind)]),
      BigInt(r.amount).toString(),
      BigInt(r.balance_after).toString(),
      textCell(describe(r)),
    ].join(';')}\r\n`;
  }
  return out;
}

/** The whole file at once (the streamed file is `csvHead()` then `csvLines` of each page). */
export const toCsv = (rows: StatementRow[]): string => csvHead() + csvLines(rows);
