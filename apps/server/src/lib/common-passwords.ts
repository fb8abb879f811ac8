import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import { AppError } from './app-error';

export const COMMON_PASSWORD = 'Этот пароль слишком распространён, его подберут первым. Придумайте другой';

let factory: ZxcvbnFactory | null = null;

/**
 * True when the whole password is one entry of zxcvbn's common-password and common-word lists
 * (also reversed, l33t or capitalised): `password123`, `qwerty123`, `Password1`. The dictionaries
 * load on first use, not at start.
 */
export function isCommonPassword(password: string): boolean {
  factory ??= new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  const { sequence } = factory.check(password.slice(0, 128));
  return sequence.length === 1 && sequence[0]!.pattern === 'dictionary';
}

/** 422 on the password field for a common password (sign-up, reset, change; PRODUCT.md section 8). */
export function refuseCommonPassword(password: string, field = 'password') {
  if (isCommonPassword(password)) throw new AppError('VALIDATION', { errors: { [field]: [COMMON_PASSWORD] } });
}
