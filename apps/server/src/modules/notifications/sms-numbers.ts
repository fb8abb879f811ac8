import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** The number types an SMS reaches a person's phone on (libphonenumber's full metadata, for getType()). */
const MOBILE_TYPES: ReadonlySet<string> = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

/**
 * Why no SMS of ours goes to this E.164 number (toll fraud, README "Security"), or null when one may:
 * `not_mobile` for every type but a mobile (premium rate, toll free, shared cost, VoIP, UAN, pager, a
 * landline …) and for a number of no country (+881 satellite, +882/+883 international networks: the
 * international premium routes); `country` for a mobile of a country outside `countries` (null: any).
 */
export function smsRefusal(to: string, countries: ReadonlySet<string> | null): 'not_mobile' | 'country' | null {
  const number = parsePhoneNumberFromString(to);
  if (!number?.isValid() || !number.country) return 'not_mobile';
  const type = number.getType();
  if (!type || !MOBILE_TYPES.has(type)) return 'not_mobile';
  return countries && !countries.has(number.country) ? 'country' : null;
}
