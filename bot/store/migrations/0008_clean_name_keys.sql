-- 0008: names are kept one line without invisible characters (bot.core.common.one_line: direction controls,
-- C0/C1 controls, zero-width and other invisible format characters dropped; a run of tabs or line breaks
-- one space). A sheet or supply stored before kept them in its lookup key, so the name as shown (cleaned)
-- found nothing. Each such name and key is cleaned here as one_line does it, then trimmed of whitespace.
-- Casefolding (in the key) neither makes nor removes those characters, so a key cleans to the key of the
-- cleaned name. A row whose cleaned key another row holds already (or a lower id or key takes first) keeps
-- its key: the two would be one name. A name of nothing but such characters is left as it is.

CREATE TEMP TABLE cleaned (old TEXT PRIMARY KEY, new TEXT NOT NULL);

INSERT INTO cleaned (old, new)
WITH RECURSIVE
    -- a name of printable ASCII alone has nothing to clean: only the others are walked, a letter a step
    named(old) AS (
        SELECT old FROM (
            SELECT name AS old FROM sheets UNION SELECT name_key FROM sheets
            UNION SELECT character FROM supply_dice UNION SELECT character_key FROM supply_dice
            UNION SELECT item FROM supply_dice UNION SELECT item_key FROM supply_dice
        ) WHERE old GLOB '*[^ -~]*'
    ),
    walk(old, rest, kept, broke) AS (
        SELECT old, old, '', 0 FROM named
        UNION ALL
        SELECT old, substr(rest, 2),
               kept || CASE
                   WHEN unicode(rest) IN (9, 10, 11, 12, 13, 133, 8232, 8233) THEN iif(broke, '', ' ')
                   WHEN unicode(rest) BETWEEN 0 AND 8 OR unicode(rest) BETWEEN 14 AND 31
                     OR unicode(rest) BETWEEN 127 AND 132 OR unicode(rest) BETWEEN 134 AND 159
                     OR unicode(rest) IN (173, 1564, 6158, 8203, 8206, 8207, 65279, 917505)
                     OR unicode(rest) BETWEEN 8234 AND 8238 OR unicode(rest) BETWEEN 8288 AND 8292
                     OR unicode(rest) BETWEEN 8294 AND 8303 OR unicode(rest) BETWEEN 65529 AND 65531
                     OR unicode(rest) BETWEEN 119155 AND 119162 THEN ''
                   ELSE substr(rest, 1, 1)
               END,
               unicode(rest) IN (9, 10, 11, 12, 13, 133, 8232, 8233)
        FROM walk WHERE rest <> ''
    ),
    done(old, new) AS (
        SELECT old, trim(kept, char(32, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201,
                                    8202, 8239, 8287, 12288))
        FROM walk WHERE rest = ''
    )
SELECT old, new FROM done WHERE new <> old AND new <> '';

UPDATE sheets SET name_key = (SELECT new FROM cleaned WHERE old = sheets.name_key)
WHERE id IN (
    SELECT id FROM (
        SELECT s.id, ROW_NUMBER() OVER (PARTITION BY s.guild_id, s.owner_id, c.new ORDER BY s.id) AS n
        FROM sheets AS s JOIN cleaned AS c ON c.old = s.name_key
        WHERE NOT EXISTS (
            SELECT 1 FROM sheets AS t
            WHERE t.guild_id = s.guild_id AND t.owner_id = s.owner_id AND t.name_key = c.new
        )
    ) AS ranked
    WHERE n = 1
);

UPDATE sheets SET name = (SELECT new FROM cleaned WHERE old = sheets.name)
WHERE name IN (SELECT old FROM cleaned);

UPDATE supply_dice
SET character_key = coalesce(
        (SELECT new FROM cleaned WHERE old = supply_dice.character_key), supply_dice.character_key
    ),
    item_key = coalesce((SELECT new FROM cleaned WHERE old = supply_dice.item_key), supply_dice.item_key)
FROM (
    SELECT d.guild_id, d.owner_id, d.character_key, d.item_key,
           ROW_NUMBER() OVER (
               PARTITION BY d.guild_id, d.owner_id, coalesce(ck.new, d.character_key), coalesce(ik.new, d.item_key)
               ORDER BY d.character_key, d.item_key
           ) AS n
    FROM supply_dice AS d
    LEFT JOIN cleaned AS ck ON ck.old = d.character_key
    LEFT JOIN cleaned AS ik ON ik.old = d.item_key
    WHERE (ck.new IS NOT NULL OR ik.new IS NOT NULL) AND NOT EXISTS (
        SELECT 1 FROM supply_dice AS t
        WHERE t.guild_id = d.guild_id AND t.owner_id = d.owner_id
          AND t.character_key = coalesce(ck.new, d.character_key) AND t.item_key = coalesce(ik.new, d.item_key)
    )
) AS ranked
WHERE ranked.n = 1
  AND supply_dice.guild_id = ranked.guild_id AND supply_dice.owner_id = ranked.owner_id
  AND supply_dice.character_key = ranked.character_key AND supply_dice.item_key = ranked.item_key;

UPDATE supply_dice
SET character = coalesce((SELECT new FROM cleaned WHERE old = supply_dice.character), character),
    item = coalesce((SELECT new FROM cleaned WHERE old = supply_dice.item), item)
WHERE character IN (SELECT old FROM cleaned) OR item IN (SELECT old FROM cleaned);

DROP TABLE cleaned;
