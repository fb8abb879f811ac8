// A player's usual slip: a recovery code (`xxxxx-xxxxx`, Latin letters and digits) typed with the keyboard still on
// the Russian layout comes out as «фисву-апршо» for «abcde-fghij». Zod-free: request() (the first page's module) uses it.

/** The Russian ЙЦУКЕН keys, lower case, in the order of the QWERTY keys below them. */
const RUSSIAN = 'ёйцукенгшщзхъфывапролджэячсмитьбю';
const QWERTY = "`qwertyuiop[]asdfghjkl;'zxcvbnm,.";
const toQwerty = new Map([...RUSSIAN].map((ru, i) => [ru, QWERTY[i]!]));

/**
 * The text as the same keys type it on the QWERTY layout: each Russian letter becomes the Latin key it sits on
 * (a capital one a capital letter); digits, dashes and Latin letters stay. No code of ours holds Cyrillic.
 */
export function latinKeys(text: string): string {
  let out = '';
  for (const ch of text) {
    const lower = ch.toLowerCase();
    const key = toQwerty.get(lower);
    out += key === undefined ? ch : lower === ch ? key : key.toUpperCase();
  }
  return out;
}
