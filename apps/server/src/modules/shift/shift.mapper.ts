import { amountText, type OperatorEvent, type OperatorStatsRow } from '@adena/contract';
import { toNumber } from '../../lib/money';
import type { AlertRow, EventRow, StatsRow } from './shift.repository';

export function toOperatorEvent(r: EventRow): OperatorEvent {
  return {
    id: r.id,
    type: r.type,
    status: r.status,
    gamesserver_id: r.gamesserver_id,
    currency_type: Number(r.currency_type) as 1 | 2,
    amount: toNumber(BigInt(r.amount)),
    vip: r.vip,
    claimed_by: r.claimed_by === null ? null : { id: r.claimed_by, name: r.claimer_name ?? '' },
  };
}

export function toStatsRow(r: StatsRow): OperatorStatsRow {
  const completed = Number(r.completed);
  const rejected = Number(r.rejected);
  const decided = completed + rejected;
  return {
    operator: { id: r.operator_id, name: r.operator_name },
    decided: { input: Number(r.input), output: Number(r.output) },
    completed,
    rejected,
    rejected_share: decided === 0 ? 0 : Math.round((rejected / decided) * 1000) / 1000,
    median_minutes: r.median_seconds === null ? null : Math.round(Number(r.median_seconds) / 6) / 10,
    unclaimed: Number(r.unclaimed),
  };
}

/** The alert's text: what an operator needs to decide whether to get up now. */
export function alertText(kind: 'vip' | 'overdue', r: AlertRow, waitedMin: number) {
  // A deposit "на" an amount (accusative), a withdrawal "of" one (genitive), as the players' notices say it.
  const amount = amountText(BigInt(r.amount), Number(r.currency_type) as 1 | 2, '\u00a0', r.type === 'input' ? 'acc' : 'gen');
  const what = r.type === 'input' ? `пополнение на ${amount}` : `вывод ${amount}`;
  const where = `${r.gamesserver}, ник ${r.nick}`;
  return kind === 'vip'
    ? `VIP-заявка №${r.id}: ${what} (${where}). Возьмите её в работу в админке.`
    : `Заявка №${r.id} ждёт ${waitedMin} мин без оператора: ${what} (${where}).`;
}

// ── CSV for Excel: UTF-8 with a BOM, `;`, Russian headers, ru-RU numbers and Moscow dates ──

const moscow = new Intl.DateTimeFormat('ru-RU', { timeZone: 'Europe/Moscow', dateStyle: 'short', timeStyle: 'short' });
const decimal = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 1, useGrouping: false });

/** A field as Excel reads it: quoted when it holds `;`, a quote or a line break; a leading = + - @ cannot start a formula. */
function field(v: string | number | null) {
  let s = v === null ? '' : typeof v === 'number' ? decimal.format(v) : v;
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[";\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const HEADERS = [
  'Оператор',
  'ID оператора',
  'Пополнений решено',
  'Выводов решено',
  'Всего решено',
  'Выполнено',
  'Отклонено',
  'Доля отказов, %',
  'Медиана от взятия до решения, мин',
  'Решено без взятия в работу',
  'Период с',
  // The end is exclusive (a report of 1 March ends at 02.03 00:00): «до», not «по».
  'Период до (не включая)',
];

export function toStatsCsv(rows: OperatorStatsRow[], from: Date, to: Date) {
  const lines = [HEADERS.map(field).join(';')];
  for (const r of rows) {
    lines.push(
      [
        r.operator.name,
        r.operator.id,
        r.decided.input,
        r.decided.output,
        r.completed + r.rejected,
        r.completed,
        r.rejected,
        Math.round(r.rejected_share * 1000) / 10,
        r.median_minutes,
        r.unclaimed,
        moscow.format(from),
        moscow.format(to),
      ]
        .map(field)
        .join(';'),
    );
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
