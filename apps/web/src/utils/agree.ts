import { plural } from './plural';

/**
 * A past-tense verb or short participle before an amount of a feminine word (адена, монета), in the
 * amount's number: «вернулась 21 адена», «вернулись 22 адены», «вернулось 25 аден».
 */
const VERBS = {
  returned: ['вернулась', 'вернулись', 'вернулось'],
  charged: ['списана', 'списаны', 'списано'],
  paid: ['оплачена', 'оплачены', 'оплачено'],
  refunded: ['возвращена', 'возвращены', 'возвращено'],
  needed: ['нужна', 'нужны', 'нужно'],
} as const;

export type AgreeingVerb = keyof typeof VERBS;

/** agree(151_501, 'returned') → «вернулась»; agree(5, 'charged') → «списано». */
export const agree = (n: number | bigint, verb: AgreeingVerb) => plural(n, VERBS[verb]);
