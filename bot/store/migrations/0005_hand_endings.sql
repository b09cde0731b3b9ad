-- 0005: a move that ends a hand writes the hand, the shoe it drew from (when it drew) and the hand's
-- roll-log row in one statement, INSERT INTO hand_endings, as 0004 does for a move that goes on. On
-- PostgreSQL each statement of a unit is a round trip to the server, and an ending move was five
-- (BEGIN, hand, shoe, log row, COMMIT). A finished hand keeps the id of its log row (hands.log_id): the
-- statement's RETURNING reads it from there, as SQLite's RETURNING gives back what was inserted into the
-- view, not what its trigger wrote.

ALTER TABLE hands ADD COLUMN log_id INTEGER;

CREATE VIEW hand_endings AS
SELECT
    CAST(NULL AS INTEGER) AS hand_id,
    CAST(NULL AS INTEGER) AS expected_version,
    CAST(NULL AS TEXT)    AS state,
    CAST(NULL AS TEXT)    AS cards,
    CAST(NULL AS TEXT)    AS data,
    CAST(NULL AS TEXT)    AS updated_at,
    CAST(NULL AS INTEGER) AS message_id,
    CAST(NULL AS INTEGER) AS decks,
    CAST(NULL AS TEXT)    AS remaining,
    CAST(NULL AS TEXT)    AS discards,
    CAST(NULL AS INTEGER) AS shoe_version,
    CAST(NULL AS INTEGER) AS roll_guild_id,
    CAST(NULL AS INTEGER) AS roll_channel_id,
    CAST(NULL AS INTEGER) AS user_id,
    CAST(NULL AS TEXT)    AS system,
    CAST(NULL AS TEXT)    AS command,
    CAST(NULL AS TEXT)    AS visibility,
    CAST(NULL AS TEXT)    AS inputs,
    CAST(NULL AS TEXT)    AS dice,
    CAST(NULL AS TEXT)    AS result,
    CAST(NULL AS TEXT)    AS summary,
    CAST(NULL AS TEXT)    AS created_at,
    CAST(NULL AS INTEGER) AS revealed_by,
    CAST(NULL AS TEXT)    AS revealed_at,
    CAST(NULL AS INTEGER) AS log_id
WHERE 0;

-- shoe_version NULL: the move drew nothing (Stand), the shoe is neither checked nor written
CREATE TRIGGER hand_endings_write INSTEAD OF INSERT ON hand_endings
BEGIN
    SELECT RAISE(ABORT, 'conflict:hand') WHERE NOT EXISTS (
        SELECT 1 FROM hands WHERE id = NEW.hand_id AND version = NEW.expected_version AND finished = 0
    );
    SELECT RAISE(ABORT, 'conflict:shoe') WHERE NEW.shoe_version IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM shoes
        WHERE channel_id = (SELECT channel_id FROM hands WHERE id = NEW.hand_id) AND version = NEW.shoe_version
    );
    UPDATE shoes
    SET decks = NEW.decks, remaining = NEW.remaining, discards = NEW.discards, version = version + 1,
        updated_at = NEW.updated_at
    WHERE NEW.shoe_version IS NOT NULL AND channel_id = (SELECT channel_id FROM hands WHERE id = NEW.hand_id);
    INSERT INTO rolls (
        guild_id, channel_id, user_id, system, command, visibility, inputs, dice, result, summary, created_at,
        revealed_by, revealed_at
    ) VALUES (
        NEW.roll_guild_id, NEW.roll_channel_id, NEW.user_id, NEW.system, NEW.command, NEW.visibility,
        NEW.inputs, NEW.dice, NEW.result, NEW.summary, NEW.created_at, NEW.revealed_by, NEW.revealed_at
    );
    UPDATE hands
    SET state = NEW.state, cards = NEW.cards, data = NEW.data, version = NEW.expected_version + 1,
        updated_at = NEW.updated_at, message_id = COALESCE(NEW.message_id, message_id), finished = 1,
        log_id = last_insert_rowid()
    WHERE id = NEW.hand_id;
END;
