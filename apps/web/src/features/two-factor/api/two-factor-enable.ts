import { twoFactorEnable } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

export const twoFactorEnableBody = twoFactorEnable.body;

/**
 * 2fa/enable: the first code turns TOTP on; the answer holds the recovery codes, shown once. The
 * user object is refreshed only when the player has seen them (TotpSetup's «Коды сохранены»):
 * for an operator it opens the admin area, which would otherwise replace the codes at once. The
 * current password goes with it (accounts without one leave it empty).
 */
export const useTwoFactorEnable = () =>
  useMutation({ mutationFn: (body: { code: string; password?: string }) => request(twoFactorEnable, { body }) });
