import { z } from 'zod';

export * from './amount';
export * from './catalogue';

/** Field messages reused by several schemas. */
export const FIELD_MESSAGES = {
  required: 'Обязательное поле',
  email: 'Введите корректный адрес почты',
  phone: 'Введите номер телефона, например 8 900 123-45-67 или +79001234567',
  passwordShort: 'Пароль должен быть не короче 8 символов',
  passwordLong: 'Пароль должен быть не длиннее 128 символов',
  passwordMismatch: 'Пароли не совпадают',
  code: 'Код состоит из 6 цифр',
  nick: 'Ник — от 2 до 16 латинских или русских букв и цифр',
  amountType: 'Введите сумму целым числом',
  amountInt: 'Сумма должна быть целым числом',
  amountPositive: 'Сумма должна быть больше нуля',
  amountMax: 'Слишком большая сумма',
  id: 'Некорректный идентификатор',
  page: 'Номер страницы — целое число от 1',
  perPage: 'Записей на странице — целое число от 1 до 100',
  currency: 'Неверная валюта',
  /** A report's or statement's period whose last day comes before its first (the same day is a period). */
  periodOrder: 'Конец периода должен быть не раньше начала',
} as const;

/** Russian fallbacks for schema failures that carry no message of their own. */
const customError: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined || issue.input === null ? FIELD_MESSAGES.required : 'Неверный тип значения';
    case 'too_small':
      return issue.origin === 'string'
        ? issue.minimum === 1
          ? FIELD_MESSAGES.required
          : `Не короче ${issue.minimum} символов`
        : `Не меньше ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string' ? `Не длиннее ${issue.maximum} символов` : `Не больше ${issue.maximum}`;
    case 'invalid_format':
      return 'Неверный формат';
    case 'invalid_value':
      return 'Недопустимое значение';
    case 'unrecognized_keys':
      return 'Лишние поля в запросе';
    default:
      return 'Некорректное значение';
  }
};

let installed = false;
/** Makes every zod message Russian in this process (server and browser alike). */
export function installRussianZodErrors() {
  if (installed) return;
  installed = true;
  z.config({ customError });
}
