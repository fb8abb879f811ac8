-- The browsers a user has signed in from (the hash of the `aw_browser` cookie's random key), and the
-- browser that opened each code flow. A password reset asked from a browser the account has signed in
-- from is not held back by the once-a-minute rule of codes a stranger keeps asking for the same address
-- (README "Security"): that browser has its own minute.
CREATE TABLE known_browsers (
  user_id      integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  browser_hash text NOT NULL CHECK (length(browser_hash) = 64),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, browser_hash)
);
CREATE INDEX known_browsers_last_seen ON known_browsers (last_seen_at);

ALTER TABLE auth_flows ADD COLUMN browser_hash text;
