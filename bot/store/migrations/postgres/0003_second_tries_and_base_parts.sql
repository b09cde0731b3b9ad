-- 0003 on PostgreSQL: as ../0003_second_tries_and_base_parts.sql (second tries a GM granted, RPS-9; the
-- parts a sustained action's Base was built from, RPS-8).

CREATE TABLE second_tries (
    log_id      BIGINT PRIMARY KEY REFERENCES rolls (id) ON DELETE CASCADE,
    guild_id    BIGINT,
    channel_id  BIGINT NOT NULL,
    roller_id   BIGINT NOT NULL,
    modifier    INTEGER NOT NULL CHECK (modifier BETWEEN -5 AND 5),
    granted_by  BIGINT NOT NULL,
    granted_at  TEXT NOT NULL,
    used_log_id BIGINT REFERENCES rolls (id),
    used_at     TEXT
);

ALTER TABLE pools ADD COLUMN base_parts JSON NOT NULL DEFAULT '[]';
