-- 0004 on PostgreSQL: as ../0004_hand_moves.sql (a move that draws writes its hand and the shoe in one
-- statement, INSERT INTO hand_moves). A lone statement runs READ COMMITTED here: each UPDATE's version
-- check is re-read on the row's newest version once its lock is held, and a check that fails raises,
-- which rolls the statement back. The function's body is one $$ block (split_statements keeps it whole).

CREATE VIEW hand_moves AS
SELECT
    CAST(NULL AS BIGINT)  AS hand_id,
    CAST(NULL AS INTEGER) AS expected_version,
    CAST(NULL AS TEXT)    AS state,
    CAST(NULL AS JSON)    AS cards,
    CAST(NULL AS JSON)    AS data,
    CAST(NULL AS TEXT)    AS updated_at,
    CAST(NULL AS BIGINT)  AS message_id,
    CAST(NULL AS INTEGER) AS decks,
    CAST(NULL AS JSON)    AS remaining,
    CAST(NULL AS JSON)    AS discards,
    CAST(NULL AS INTEGER) AS shoe_version
WHERE false;

CREATE FUNCTION hand_moves_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moved_channel BIGINT;
BEGIN
    UPDATE hands
    SET state = NEW.state, cards = NEW.cards, data = NEW.data, version = NEW.expected_version + 1,
        updated_at = NEW.updated_at, message_id = COALESCE(NEW.message_id, message_id)
    WHERE id = NEW.hand_id AND version = NEW.expected_version AND finished = 0
    RETURNING channel_id INTO moved_channel;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'conflict:hand';
    END IF;
    UPDATE shoes
    SET decks = NEW.decks, remaining = NEW.remaining, discards = NEW.discards, version = version + 1,
        updated_at = NEW.updated_at
    WHERE channel_id = moved_channel AND version = NEW.shoe_version;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'conflict:shoe';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER hand_moves_write INSTEAD OF INSERT ON hand_moves
FOR EACH ROW EXECUTE FUNCTION hand_moves_write();
