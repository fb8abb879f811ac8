import { routes } from '@adena/contract/lite';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { walletsQueryOptions } from '../../../lib/wallets';

export interface SaveNickInput {
  gameServerId: number;
  nick: string;
}

export const saveNick = ({ gameServerId, nick }: SaveNickInput) => request(routes.saveNick, { body: { gamesserver_id: gameServerId, nick } });

/** The wallet's nick on a game server: the operator finds a transfer by it. */
export function useSaveNick() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: saveNick,
    onSuccess: () => qc.invalidateQueries({ queryKey: walletsQueryOptions().queryKey }),
  });
}
