-- 0005 on PostgreSQL: as ../0005_hand_endings.sql (a move that ends a hand writes the hand, the shoe it
-- drew from and its log row in one statement, INSERT INTO hand_endings). A lone statement runs READ
-- COMMITTED: the hand's row is locked and its version re-checked on its newest version (FOR UPDATE), the
-- shoe's by its UPDATE, and a check that fails raises, which rolls the whole statement back. The function
-- also returns the log row's id in NEW.log_id, which the statement's RETURNING reads.

ALTER TABLE hands ADD COLUMN log_id BIGINT;

CREATE VIEW hand_endings AS
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
    CAST(NULL AS INTEGER) AS shoe_version,
    CAST(NULL AS BIGINT)  AS roll_guild_id,
    CAST(NULL AS BIGINT)  AS roll_channel_id,
    CAST(NULL AS BIGINT)  AS user_id,
    CAST(NULL AS TEXT)    AS system,
    CAST(NULL AS TEXT)    AS command,
    CAST(NULL AS TEXT)    AS visibility,
    CAST(NULL AS JSON)    AS inputs,
    CAST(NULL AS JSON)    AS dice,
    CAST(NULL AS TEXT)    AS result,
    CAST(NULL AS TEXT)    AS summary,
    CAST(NULL AS TEXT)    AS created_at,
    CAST(NULL AS BIGINT)  AS revealed_by,
    CAST(NULL AS TEXT)    AS revealed_at,
    CAST(NULL AS BIGINT)  AS log_id
WHERE false;

CREATE FUNCTION hand_endings_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ending_channel BIGINT;
BEGIN
    SELECT channel_id INTO ending_channel FROM hands
    WHERE id = NEW.hand_id AND version = NEW.expected_version AND finished = 0
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'conflict:hand';
    END IF;
    IF NEW.shoe_version IS NOT NULL THEN
        UPDATE shoes
        SET decks = NEW.decks, remaining = NEW.remaining, discards = NEW.discards, version = version + 1,
            updated_at = NEW.updated_at
        WHERE channel_id = ending_channel AND version = NEW.shoe_version;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'conflict:shoe';
        END IF;
    END IF;
    INSERT INTO rolls (
        guild_id, channel_id, user_id, system, command, visibility, inputs, dice, result, summary, created_at,
        revealed_by, revealed_at
    ) VALUES (
        NEW.roll_guild_id, NEW.roll_channel_id, NEW.user_id, NEW.system, NEW.command, NEW.visibility,
        NEW.inputs, NEW.dice, NEW.result, NEW.summary, NEW.created_at, NEW.revealed_by, NEW.revealed_at
    )
    RETURNING id INTO NEW.log_id;
    UPDATE hands
    SET state = NEW.state, cards = NEW.cards, data = NEW.data, version = NEW.expected_version + 1,
        updated_at = NEW.updated_at, message_id = COALESCE(NEW.message_id, message_id), finished = 1,
        log_id = NEW.log_id
    WHERE id = NEW.hand_id;
    RETURN NEW;
END;
$$;

CREATE TRIGGER hand_endings_write INSTEAD OF INSERT ON hand_endings
FOR EACH ROW EXECUTE FUNCTION hand_endings_write();
