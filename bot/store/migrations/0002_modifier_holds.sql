-- 0002: a roll's reservation of a GM modifier's use is a row, not a process's memory, so rolls arriving
-- through several processes (shards sharing a database) never count on the same last use. A hold ends
-- when its roll is logged (the use taken in the same transaction), when the roll fails, or at expires_at
-- (Unix time): a process that died mid-roll holds nothing for long.

CREATE TABLE modifier_holds (
    modifier_id INTEGER NOT NULL REFERENCES pending_modifiers (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    ticket      TEXT NOT NULL,
    expires_at  REAL NOT NULL
);
CREATE INDEX modifier_holds_by_modifier ON modifier_holds (modifier_id, user_id);
CREATE INDEX modifier_holds_by_ticket ON modifier_holds (ticket);
