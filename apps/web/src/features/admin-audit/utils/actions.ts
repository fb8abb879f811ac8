/**
 * Every action the server writes to the audit log (`audit.record` in apps/server/src/modules), in
 * operators' words; actions.test.ts reads the server's sources to keep this list whole.
 */
export const AUDIT_ACTIONS: Record<string, string> = {
  'gamesserver.create': 'Сервер добавлен',
  'gamesserver.update': 'Сервер изменён',
  'user.admin_grant': 'Выданы права админа',
  'user.admin_revoke': 'Сняты права админа',
  'user.vip_grant': 'Выдан VIP',
  'user.vip_revoke': 'Снят VIP',
  'user.block': 'Заблокирован',
  'user.unblock': 'Разблокирован',
  'user.two_factor_off': 'Вход с кодом отключён',
  'code_incident.resolve': 'Инцидент закрыт',
  'code.cancel': 'Код отменён',
  'request.claim': 'Заявка взята в работу',
  // By its holder, by another operator once the claim lapsed, or with a blocked or demoted operator's claims.
  'request.release': 'Заявка снята с работы',
  'request.complete': 'Заявка выполнена',
  'request.reject': 'Заявка отклонена',
};

/** An action in words; one the list does not know yet shows as it is. */
export const auditActionLabel = (action: string) => AUDIT_ACTIONS[action] ?? action;

/**
 * The fields the server keeps in an entry's before and after (the user's audit view and what a
 * rescue revoked, a game server's settings, a request's claim and decision, a code's cancel, an
 * incident's note), in operators' words.
 */
export const AUDIT_FIELDS: Record<string, string> = {
  admin: 'Админ',
  vip_until: 'VIP до',
  blocked_at: 'Заблокирован',
  two_factor: 'Вход с кодом',
  reason: 'Причина',
  api_keys_revoked: 'Отозвано ключей продавца',
  passkeys_removed: 'Удалено ключей доступа',
  telegram_chat_unlinked: 'Чат Telegram отвязан',
  webhook_removed: 'Вебхук удалён',
  discord_unlinked: 'Discord отвязан',
  id: 'id',
  name: 'Название',
  cashier_nick: 'Ник кассира',
  limits: 'Лимиты',
  code_fee_bp: 'Комиссия за код, б.п.',
  vip_code_fee_bp: 'Комиссия для VIP, б.п.',
  min_nominal: 'Минимальный номинал',
  standard_nominals: 'Стандартные номиналы',
  vip_price: 'Цена VIP в монетах',
  vip_period_days: 'Срок VIP, дней',
  active: 'Виден игрокам',
  sort_order: 'Порядок',
  created_at: 'Создан',
  updated_at: 'Изменён',
  claimed_by: 'В работе у',
  claimed_at: 'Взята в работу',
  // The operator whose claim ended without a decision when they were blocked, demoted or lost TOTP (shift's releaseAllOf).
  claim_dropped_by: 'Снята с работы у',
  status: 'Статус',
  amount: 'Сумма',
  comment: 'Комментарий',
  processed_by: 'Обработал',
  refunded: 'Возвращено',
  wallet_id: 'Кошелёк',
  note: 'Заметка',
};

/** The fields that hold a user's id (an operator's): shown as the operator's name (utils/values' auditValue). */
export const AUDIT_OPERATOR_FIELDS: ReadonlySet<string> = new Set(['claimed_by', 'processed_by', 'claim_dropped_by']);

/** The statuses an entry's `status` field holds, by the entry's object, in operators' words. */
export const AUDIT_STATUSES: Record<string, Record<string, string>> = {
  balance_request: { pending: 'ожидает', completed: 'выполнена', rejected: 'отклонена', cancelled: 'отменена' },
  code: { active: 'активен', activated: 'активирован', cancelled: 'отменён' },
};
