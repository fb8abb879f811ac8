const rules = new Intl.PluralRules('ru-RU');

/** plural(5, ['код', 'кода', 'кодов']) → «кодов» */
export function plural(n: number, [one, few, many]: readonly [string, string, string]): string {
  const rule = rules.select(n);
  return rule === 'one' ? one : rule === 'few' ? few : many;
}
