-- 0004: a move that draws writes its hand and the channel's shoe in one statement (no BEGIN ... COMMIT
-- around two), both version-checked: INSERT INTO hand_moves is that statement. The view holds no rows;
-- its trigger refuses a hand or shoe that moved on with RAISE, which rolls the whole statement back.
-- A trigger's body ends at a line "END;" (bot.store.db.split_statements keeps it whole).

CREATE VIEW hand_moves AS
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
    CAST(NULL AS INTEGER) AS shoe_version
WHERE 0;

CREATE TRIGGER hand_moves_write INSTEAD OF INSERT ON hand_moves
BEGIN
    SELECT RAISE(ABORT, 'conflict:hand') WHERE NOT EXISTS (
        SELECT 1 FROM hands WHERE id = NEW.hand_id AND version = NEW.expected_version AND finished = 0
    );
    SELECT RAISE(ABORT, 'conflict:shoe') WHERE NOT EXISTS (
        SELECT 1 FROM shoes
        WHERE channel_id = (SELECT channel_id FROM hands WHERE id = NEW.hand_id) AND version = NEW.shoe_version
    );
    UPDATE hands
    SET state = NEW.state, cards = NEW.cards, data = NEW.data, version = NEW.expected_version + 1,
        updated_at = NEW.updated_at, message_id = COALESCE(NEW.message_id, message_id)
    WHERE id = NEW.hand_id;
    UPDATE shoes
    SET decks = NEW.decks, remaining = NEW.remaining, discards = NEW.discards, version = version + 1,
        updated_at = NEW.updated_at
    WHERE channel_id = (SELECT channel_id FROM hands WHERE id = NEW.hand_id);
END;
