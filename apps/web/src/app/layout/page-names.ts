// The page names, in a chunk of their own: the first page does not carry them (decision record 0028).

/** Page names by path prefix, longest first where they nest; the home page has none. */
const NAMES: Array<[RegExp, string]> = [
  [/^\/help\/?$/, 'Помощь'],
  [/^\/contacts\/?$/, 'Контакты'],
  [/^\/about\/?$/, 'О нас'],
  [/^\/profile\/?$/, 'Профиль'],
  [/^\/sellers\/?$/, 'Для продавцов'],
  [/^\/auth\/register\//, 'Регистрация'],
  [/^\/auth\/reset\//, 'Восстановление пароля'],
  [/^\/auth\/two_factor/, 'Код подтверждения'],
  [/^\/auth(\/|$)/, 'Вход'],
  [/^\/admin\/shift/, 'Смена'],
  [/^\/admin\/servers/, 'Серверы'],
  [/^\/admin\/users/, 'Пользователи'],
  [/^\/admin\/codes/, 'Коды'],
  [/^\/admin\/incidents/, 'Инциденты'],
  [/^\/admin\/ledger/, 'Учёт'],
  [/^\/admin\/audit/, 'Журнал действий'],
  [/^\/admin\/?$/, 'Заявки'],
];

/** The tab's title for a path: «<page> — <brand>» (BRAND_NAME, «Адена Кошелёк» by default), the home page the brand alone. */
export function pageTitle(pathname: string, brand: string): string {
  if (pathname === '/') return brand;
  const name = NAMES.find(([re]) => re.test(pathname))?.[1] ?? 'Страница не найдена';
  return `${name} — ${brand}`;
}
