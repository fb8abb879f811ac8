import { routes } from '@adena/contract/lite';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { withStepUp } from '../../../lib/step-up';
import { walletsQueryOptions } from '../../../lib/wallets';

export interface SaveNickInput {
  gameServerId: number;
  nick: string;
}

/** With TOTP on, changing a nick already set asks for the code (the step-up prompt): payouts go to that character. */
export const saveNick = ({ gameServerId, nick }: SaveNickInput) =>
  withStepUp((twoFactorCode) => request(routes.saveNick, { body: { gamesserver_id: gameServerId, nick }, twoFactorCode }));

/** The wallet's nick on a game server: the operator finds a transfer by it. */
export function useSaveNick() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: saveNick,
    onSuccess: () => qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey }),
  });
}
