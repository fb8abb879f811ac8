import { twoFactorSetup } from '@adena/contract';
import { useMutation } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';

/** 2fa/setup: a new secret and its otpauth:// address, pending until enable. */
export const useTwoFactorSetup = () => useMutation({ mutationFn: () => request(twoFactorSetup) });
