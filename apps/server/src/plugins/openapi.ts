import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/**
 * The OpenAPI 3.1 document of the whole API at /api/openapi.json, built from the routes' zod
 * schemas (the contract's) by @fastify/swagger with the zod provider's transform, and a readable
 * reference at /api/docs (@fastify/swagger-ui, its files served from this origin). Registered
 * before any route, since the document is collected from each route as it is added.
 */

type Doc = [tag: string, summary: string, description?: string];

const KEY = 'Запросы к /api/v1 подписываются API-ключом: `Authorization: Bearer aw_…`. Токен входа здесь не действует.';

/** Russian names of the calls, by "METHOD path" or by path. */
const DOCS: Record<string, Doc> = {
  '/api/email_register': ['Вход и регистрация', 'Регистрация по email: шаг 1, отправка кода'],
  '/api/new_token_email_register': ['Вход и регистрация', 'Регистрация по email: новый код'],
  '/api/code_verification_email_register': ['Вход и регистрация', 'Регистрация по email: проверка кода'],
  '/api/phone_register': ['Вход и регистрация', 'Регистрация по телефону: шаг 1, отправка кода'],
  '/api/new_token_phone_register': ['Вход и регистрация', 'Регистрация по телефону: новый код'],
  '/api/code_verification_phone_register': ['Вход и регистрация', 'Регистрация по телефону: проверка кода'],
  '/api/login': ['Вход и регистрация', 'Вход по email и паролю'],
  '/api/phone_login': ['Вход и регистрация', 'Вход по телефону и паролю'],
  '/api/email_reset_password_code_date': ['Вход и регистрация', 'Сброс пароля по email: отправка кода'],
  '/api/email_reset_password_code_check': ['Вход и регистрация', 'Сброс пароля по email: проверка кода'],
  '/api/email_create_new_password': ['Вход и регистрация', 'Сброс пароля по email: новый пароль'],
  '/api/phone_reset_password': ['Вход и регистрация', 'Сброс пароля по телефону: отправка кода'],
  '/api/phone_reset_password_code_check': ['Вход и регистрация', 'Сброс пароля по телефону: проверка кода'],
  '/api/phone_create_new_password': ['Вход и регистрация', 'Сброс пароля по телефону: новый пароль'],
  '/api/discord_auth': ['Вход и регистрация', 'Вход через Discord'],
  '/api/telegram_auth': ['Вход и регистрация', 'Вход через Telegram Login Widget'],
  '/api/web_app': ['Вход и регистрация', 'Вход из мини-приложения Telegram'],
  '/api/user': ['Профиль', 'Текущий пользователь'],
  '/api/logout': ['Профиль', 'Выход: токен перестаёт действовать'],
  '/api/auth_config': ['Система', 'Доступные способы входа'],
  '/api/gamesservers': ['Система', 'Игровые серверы'],
  '/api/health': ['Система', 'Процесс жив'],
  '/api/ready': ['Система', 'Готов принимать запросы'],
  '/api/wallets': ['Кошелёк', 'Кошельки пользователя'],
  '/api/get_user_input_output_balance': ['Кошелёк', 'История пополнений и выводов'],
  '/api/up_balance_user/': ['Кошелёк', 'Заявка на пополнение адены'],
  '/api/up_balance_user_second_currency/': ['Кошелёк', 'Заявка на пополнение монет эйнхасад'],
  '/api/down_balance_user/': ['Кошелёк', 'Заявка на вывод адены'],
  '/api/down_balance_user_second_currency/': ['Кошелёк', 'Заявка на вывод монет эйнхасад'],
  '/api/delete_balance_user/{id}': ['Кошелёк', 'Скрыть завершённую заявку из истории'],
  '/api/delete_request/': ['Кошелёк', 'Отменить ожидающую заявку'],
  '/api/save_nick/': ['Кошелёк', 'Ник персонажа на сервере'],
  '/api/add_limit_otvetka/': ['Кошелёк', 'Порог баланса для уведомления в Telegram'],
  '/api/del_limit_otvetka/': ['Кошелёк', 'Убрать порог уведомления'],
  '/api/varianty_adeny_za_kod/{id}': ['Коды', 'Цены кодов на сервере'],
  '/api/auth_varianty_adeny_za_kod/{id}': ['Коды', 'Цены, коды и варианты пользователя на сервере'],
  '/api/show_code/': ['Коды', 'Выпустить код'],
  '/api/activation_code/': ['Коды', 'Активировать код'],
  '/api/codes/{id}/cancel': ['Коды', 'Отменить свой код (цена возвращается)'],
  'POST /api/pricekods/': ['Коды', 'Создать свой вариант (партию кодов)'],
  'PUT /api/pricekods/{id}': ['Коды', 'Изменить свой вариант'],
  'DELETE /api/pricekods/{id}': ['Коды', 'Удалить свой вариант (открытые коды отменяются)'],
  '/api/code_incidents/{id}/ack': ['Коды', 'Отметить ошибочную активацию прочитанной'],
  '/api/get_error_user_code': ['Коды', 'Число непрочитанных ошибочных активаций'],
  '/api/vip/': ['Профиль', 'Купить VIP за монеты'],
  '/api/ably-token': ['Уведомления', 'Токен для канала realtime'],
  '/api/testAbly': ['Уведомления', 'Тестовое сообщение в свой канал'],
  '/api/admin/requests': ['Администрирование', 'Очередь заявок операторов'],
  '/api/admin/requests/{id}/complete': ['Администрирование', 'Выполнить заявку'],
  '/api/admin/requests/{id}/reject': ['Администрирование', 'Отклонить заявку с причиной'],
  '/api/admin/dashboard': ['Администрирование', 'Сводка ожидающих заявок'],
  'GET /api/admin/gamesservers': ['Администрирование', 'Игровые серверы'],
  'POST /api/admin/gamesservers': ['Администрирование', 'Добавить игровой сервер'],
  '/api/admin/gamesservers/{id}': ['Администрирование', 'Изменить игровой сервер'],
  '/api/admin/users': ['Администрирование', 'Поиск пользователей'],
  '/api/admin/users/{id}': ['Администрирование', 'Карточка пользователя'],
  '/api/admin/users/{id}/admin': ['Администрирование', 'Права администратора'],
  '/api/admin/users/{id}/block': ['Администрирование', 'Заблокировать пользователя'],
  '/api/admin/users/{id}/unblock': ['Администрирование', 'Разблокировать пользователя (администратора — с кодом оператора)'],
  '/api/admin/users/{id}/two_factor_off': ['Администрирование', 'Отключить пользователю вход с кодом (с кодом оператора)'],
  '/api/admin/users/{id}/vip': ['Администрирование', 'VIP пользователя'],
  '/api/admin/codes': ['Администрирование', 'Поиск кода'],
  '/api/admin/codes/{id}/cancel': ['Администрирование', 'Отменить код (цена возвращается выпустившему)'],
  '/api/admin/code_incidents': ['Администрирование', 'Ошибочные активации'],
  '/api/admin/code_incidents/{id}/resolve': ['Администрирование', 'Закрыть ошибочную активацию'],
  '/api/admin/incident_resolutions': ['Администрирование', 'Решения по ошибочным активациям'],
  '/api/admin/ledger/audit': ['Администрирование', 'Проверка всех инвариантов журнала'],
  '/api/admin/ledger/totals': ['Администрирование', 'Итоги по счетам журнала'],
  '/api/admin/ledger/accounts/{id}/entries': ['Администрирование', 'Проводки счёта'],
  '/api/admin/audit_log': ['Администрирование', 'Журнал действий операторов'],
  'POST /api/api_keys': [
    'Для продавцов',
    'Создать API-ключ (показывается один раз)',
    'С включённым входом по коду — код в заголовке `X-Two-Factor-Code`; без него — текущий пароль в `password`. ' +
      'Аккаунт без пароля (вход через Telegram или Discord) создаёт ключ в течение 15 минут после входа.',
  ],
  'GET /api/api_keys': ['Для продавцов', 'Список API-ключей'],
  '/api/api_keys/{id}': ['Для продавцов', 'Отозвать API-ключ'],
  'GET /api/webhook': ['Для продавцов', 'Настройки вебхука'],
  'PUT /api/webhook': [
    'Для продавцов',
    'Задать адрес и события вебхука',
    'Секрет (`whsec_…`) выдаётся при создании и при смене. ' +
      'С включённым входом по коду — код в заголовке `X-Two-Factor-Code`; без него — текущий пароль в `password`. ' +
      'Аккаунт без пароля (вход через Telegram или Discord) настраивает вебхук в течение 15 минут после входа.',
  ],
  'DELETE /api/webhook': ['Для продавцов', 'Удалить вебхук'],
  '/api/webhook/rotate': [
    'Для продавцов',
    'Новый секрет вебхука',
    'С включённым входом по коду — код в заголовке `X-Two-Factor-Code`; без него — текущий пароль в `password`. ' +
      'Аккаунт без пароля (вход через Telegram или Discord) меняет секрет в течение 15 минут после входа.',
  ],
  '/api/webhook/test': ['Для продавцов', 'Отправить тестовое событие ping'],
  '/api/webhook/deliveries': ['Для продавцов', 'Журнал доставок: последние 50'],
  '/api/v1/balance': ['API продавца (v1)', 'Баланс на сервере', KEY],
  'POST /api/v1/codes': [
    'API продавца (v1)',
    'Выпустить от 1 до 100 кодов',
    `${KEY} Заголовок \`Idempotency-Key\` обязателен: повтор с тем же ключом вернёт тот же ответ, коды не выпускаются дважды.`,
  ],
  'GET /api/v1/codes': [
    'API продавца (v1)',
    'Список своих кодов (по 50 на странице)',
    `${KEY} От новых к старым. Чтобы пройти весь список, пока коды активируют и отменяют, передавайте в \`older_than\` id последнего прочитанного кода и page=1: ` +
      'со сдвигом по page код, вышедший из фильтра, сдвигает следующие страницы, и один код не попадает ни на одну.',
  ],
  'GET /api/v1/codes/{id}': ['API продавца (v1)', 'Один свой код', KEY],
  'DELETE /api/v1/codes/{id}': ['API продавца (v1)', 'Отменить код (цена возвращается)', KEY],
};

/** The longest Idempotency-Key the server takes (lib/idempotency.ts). */
const IDEMPOTENCY_KEY_MAX = 100;

/** `Idempotency-Key` as a header parameter: required on the v1 issue, optional on the v1 cancel. */
const idempotencyHeader = (required: boolean) => ({
  type: 'object',
  properties: {
    'Idempotency-Key': {
      type: 'string',
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX,
      description: required
        ? 'Обязателен. Например, номер заказа: повтор с тем же ключом вернёт первый ответ, коды не выпускаются дважды. Другое тело с тем же ключом — 409.'
        : 'Необязателен. Повтор отмены с тем же ключом после потерянного ответа вернёт первый ответ, а не 409. Ключ выпуска для отмены не годится (409).',
    },
  },
  ...(required ? { required: ['Idempotency-Key'] } : {}),
});

/** The error body every refusal has (PRODUCT.md section 3): `message`, and `errors` by field. */
const errorBody = (description: string, headers?: Record<string, unknown>) => ({
  description,
  type: 'object',
  properties: {
    message: { type: 'string' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
  },
  required: ['message'],
  ...(headers ? { headers } : {}),
});

const UNAUTHORIZED = 'Нет API-ключа, ключ неверен или отозван, пользователь заблокирован';
const INVALID = 'Неверные данные: `errors` по полям';
const TOO_MANY = 'Больше 120 вызовов в минуту с этим ключом';
const RETRY_AFTER = { 'Retry-After': { type: 'integer', description: 'Через сколько секунд повторить' } };
const KEY_REUSED = 'ключ повтора уже использован с другим запросом';

/** The v1 calls' headers and refusals (status → what it means there), beyond what their zod schemas say. */
const V1_EXTRA: Record<string, { headers?: object; errors: Record<number, string> }> = {
  'GET /api/v1/balance': { errors: { 401: UNAUTHORIZED, 404: 'Игровой сервер не найден', 422: INVALID, 429: TOO_MANY } },
  'POST /api/v1/codes': {
    headers: idempotencyHeader(true),
    errors: {
      401: UNAUTHORIZED,
      404: 'Игровой сервер не найден',
      409: `Не хватает баланса (\`low_cap\`) или ${KEY_REUSED}`,
      422: `${INVALID}; без заголовка Idempotency-Key — \`errors["Idempotency-Key"]\``,
      429: TOO_MANY,
    },
  },
  'GET /api/v1/codes': { errors: { 401: UNAUTHORIZED, 422: INVALID, 429: TOO_MANY } },
  'GET /api/v1/codes/{id}': { errors: { 401: UNAUTHORIZED, 404: 'Код не найден (чужой — тоже)', 422: INVALID, 429: TOO_MANY } },
  'DELETE /api/v1/codes/{id}': {
    headers: idempotencyHeader(false),
    errors: {
      401: UNAUTHORIZED,
      404: 'Код не найден (чужой — тоже)',
      409: `Код уже не активен (\`status\`: activated или cancelled, \`errors.id\`) или ${KEY_REUSED}`,
      422: INVALID,
      429: TOO_MANY,
    },
  },
};

const v1ExtraOf = (method: string, url: string, schema: { response?: unknown }) => {
  const extra = V1_EXTRA[`${method} ${url.replace(/:(\w+)/g, '{$1}')}`];
  if (!extra) return {};
  const errors = Object.fromEntries(Object.entries(extra.errors).map(([code, text]) => [code, errorBody(text, code === '429' ? RETRY_AFTER : undefined)]));
  return { ...(extra.headers ? { headers: extra.headers } : {}), response: { ...(schema.response as object), ...errors } };
};

const docOf = (method: string, url: string): Doc | undefined => {
  const path = url.replace(/:(\w+)/g, '{$1}');
  return DOCS[`${method} ${path}`] ?? DOCS[path] ?? (path.startsWith('/api/admin/') ? ['Администрирование', 'Вызов операторов'] : undefined);
};

export async function registerOpenApi(app: FastifyInstance) {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Адена Кошелёк API',
        version: '1.0.0',
        description:
          'Кошельки адены и монет эйнхасад по игровым серверам Lineage 2, заявки на пополнение и вывод, подарочные коды и API для продавцов. ' +
          'Ошибки: 422 с `errors` по полям, 401, 403, 404, 409, 429 (с `Retry-After`); тексты на русском.',
      },
      components: {
        securitySchemes: {
          accessToken: { type: 'http', scheme: 'bearer', description: 'Токен входа (access_token)' },
          apiKey: { type: 'http', scheme: 'bearer', description: 'API-ключ продавца `aw_…`, только для /api/v1' },
        },
      },
    },
    transform: (arg) => {
      const method = String(arg.route.method);
      if (!arg.url.startsWith('/api/') || arg.url.startsWith('/api/docs')) return { schema: { ...arg.schema, hide: true } as never, url: arg.url };
      const out = jsonSchemaTransform(arg);
      const doc = docOf(method, arg.url);
      const security = arg.url.startsWith('/api/v1/') ? [{ apiKey: [] }] : [{ accessToken: [] }, {}];
      return {
        ...out,
        schema: {
          ...out.schema,
          ...v1ExtraOf(method, arg.url, out.schema as { response?: unknown }),
          ...(doc ? { tags: [doc[0]], summary: doc[1], ...(doc[2] ? { description: doc[2] } : {}) } : {}),
          security,
        },
      } as ReturnType<typeof jsonSchemaTransform>;
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/api/openapi.json', { schema: { hide: true } as never }, async () => app.swagger());
}
