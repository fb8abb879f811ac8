-- A Discord account a recovery unlinked (a password reset, support's TOTP rescue, the block of a stolen
-- account) is not linked to the same account again by its verified email. A thief who held the owner's
-- mailbox could verify that address on their own Discord; the link outlived the owner's reset, and
-- unlinking alone would let their next Discord sign-in link it again (README "Rules", second factors).
-- No foreign key: users are never deleted (a trigger refuses it).
CREATE TABLE discord_link_refusals (
  user_id    integer NOT NULL,
  discord_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, discord_id)
);
