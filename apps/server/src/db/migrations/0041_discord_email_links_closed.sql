-- When a recovery (a reset, support's TOTP rescue, the block of a stolen account) closed linking a Discord
-- account to this user by its verified email. From then on every Discord account is refused that way, not only
-- the one the recovery unlinked (0035): a thief who verified the owner's address on a Discord account never
-- linked yet would otherwise be linked by it at the first Discord sign-in after the owner's recovery.
ALTER TABLE users ADD COLUMN discord_email_links_closed_at timestamptz;
