-- A Discord sign-in that found its account by verified email links the Discord id to it. For a user
-- with TOTP on that link waits with the pending sign-in, like a reset's new password (0028), and
-- POST /2fa/verify makes it with the good code: a Discord account alone leaves no trace on the account.
ALTER TABLE two_factor_challenges ADD COLUMN link_discord_id text;
