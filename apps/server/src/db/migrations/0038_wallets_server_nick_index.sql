-- Whether another player's wallet on the same server carries a request's nick (the operators' queue flags
-- such a request: operators match an in-game transfer to a deposit by nick, and nicks are not unique).
CREATE INDEX wallets_server_nick ON wallets (gamesserver_id, lower(nick)) WHERE nick IS NOT NULL;
