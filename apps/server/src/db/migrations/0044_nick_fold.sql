-- A nick's letter case folded the same on every cluster: lower() folds Cyrillic only under a UTF-8 locale, and a
-- cluster made with --locale=C (the tests', some hosts') left «ВОИН» and «Воин» apart, so the operators' queue did
-- not flag a deposit whose nick another player gave in another case (db/shared-nick.ts). translate() folds the
-- Russian alphabet whatever the locale; lower() then folds Latin, which every locale does.
CREATE FUNCTION nick_fold(t text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT lower(translate(t, 'АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ', 'абвгдеёжзийклмнопрстуфхцчшщъыьэюя')) $$;

DROP INDEX wallets_server_nick;
CREATE INDEX wallets_server_nick ON wallets (gamesserver_id, nick_fold(nick)) WHERE nick IS NOT NULL;
