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
