-- Whether the user's Discord account was linked by its verified email (a Discord sign-in that found the
-- account by address), not made by Discord itself. Only such a link is unlinked by a recovery and refused
-- afterwards (0035): an account Discord created keeps its own Discord, often its only way in. Links made
-- before this migration count as made by Discord (kept), the side that locks no owner out.
ALTER TABLE users ADD COLUMN discord_linked_by_email boolean NOT NULL DEFAULT false;
