/**
 * Every Russian text the server sends as an error, keyed by a stable code. The client shows
 * these as they come; it never translates codes itself.
 */
export const ERROR_MESSAGES = {
  VALIDATION: 'Проверьте введённые данные',
  UNAUTHENTICATED: 'Необходимо выполнить вход',
  INVALID_CREDENTIALS: 'Неверный логин или пароль',
  FORBIDDEN: 'Недостаточно прав для этого действия',
  USER_BLOCKED: 'Ваш аккаунт заблокирован. Обратитесь в поддержку',
  NOT_FOUND: 'Не найдено',
  INSUFFICIENT_BALANCE: 'Недостаточно средств на балансе',
  CODE_NOT_ACTIVE: 'Код уже активирован или отменён',
  REQUEST_NOT_PENDING: 'Заявка уже обработана',
  CONFLICT: 'Действие невозможно в текущем состоянии',
  LIMIT_EXCEEDED: 'Сумма вне допустимых пределов',
  TOO_MANY_ATTEMPTS: 'Слишком много попыток. Попробуйте позже',
  /** 503: the database is unreachable or the process is shutting down (PRODUCT.md section 9). */
  UNAVAILABLE: 'Сервис временно недоступен. Повторите попытку через минуту',
  SHUTTING_DOWN: 'Сервер перезапускается. Повторите попытку',
  INTERNAL: 'Неизвестная ошибка приложения. Обновите страницу и попробуйте снова или обратитесь в поддержку',
} as const;

/**
 * The sign-up flow's resends are used up (5): its 429 sends the web back to the details form, where «Получить
 * код» starts a new flow, instead of counting down to the same refusal again.
 */
export const RESENDS_USED_UP = 'Слишком много повторных отправок. Начните заново';

/**
 * The realtime connection's own refusals (engine.io's HTTP 400/403 bodies `{ code, message }` and its refused
 * WebSocket upgrades), by engine.io's error code: a malformed or stale handshake, never a product rule.
 */
export const REALTIME_REFUSALS: Readonly<Record<0 | 1 | 2 | 3 | 4 | 5, string>> = {
  0: 'Неизвестный способ соединения',
  1: 'Соединение не найдено. Подключитесь заново',
  2: 'Неверный запрос на соединение',
  3: 'Некорректный запрос на соединение',
  4: ERROR_MESSAGES.FORBIDDEN,
  5: 'Неподдерживаемая версия протокола. Обновите страницу',
};

export type ErrorCode = keyof typeof ERROR_MESSAGES;

export const errorMessage = (code: ErrorCode): string => ERROR_MESSAGES[code];

/** Schema issues → PRODUCT.md's `errors` object: field path → messages; whole-body issues under `_`. */
export function zodIssuesToErrors(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>) {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : '_';
    const list = errors[key] ?? [];
    if (!list.includes(issue.message)) list.push(issue.message);
    errors[key] = list;
  }
  return errors;
}
