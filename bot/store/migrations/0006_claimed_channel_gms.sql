-- 0006: a channel GM row says how it was made. A GM who claims a channel (/gm claim) is claimed = 1:
-- the row only routes the channel's hidden rolls to them by DM while they are still a GM by role or
-- Manage Server; it gives no GM rights of its own (GM-1's third way is a member made GM by an admin,
-- /setup channel-gm add, claimed = 0). Rows from before 0006 were made either way: they stay claimed = 0.

ALTER TABLE channel_gms ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0 CHECK (claimed IN (0, 1));
