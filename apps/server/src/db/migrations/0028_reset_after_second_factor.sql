-- A password reset of a user with TOTP on changes nothing until the code is given: the new password's
-- hash waits with the pending sign-in and is applied, with the reset's other effects (every session
-- ended, seller keys and passkeys removed), by POST /2fa/verify in the transaction that ends it.
ALTER TABLE two_factor_challenges ADD COLUMN new_password_hash text;
