-- 0002: second tries a GM granted after a failed RPS check (RPS-9). One grant per failed check (its log
-- row), taken once by the player who failed: used_log_id is the log row of the try itself.
-- And the parts a sustained action's Base was built from (RPS-8), so each check shows them.

CREATE TABLE second_tries (
    log_id      INTEGER PRIMARY KEY REFERENCES rolls (id) ON DELETE CASCADE,
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,
    roller_id   INTEGER NOT NULL,
    modifier    INTEGER NOT NULL CHECK (modifier BETWEEN -5 AND 5),
    granted_by  INTEGER NOT NULL,
    granted_at  TEXT NOT NULL,
    used_log_id INTEGER REFERENCES rolls (id),
    used_at     TEXT
);

ALTER TABLE pools ADD COLUMN base_parts TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(base_parts));
