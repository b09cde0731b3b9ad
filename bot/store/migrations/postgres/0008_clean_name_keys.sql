-- 0008: names are kept one line without invisible characters (bot.core.common.one_line: direction controls,
-- C0/C1 controls, zero-width and other invisible format characters dropped; a run of tabs or line breaks
-- one space). A sheet or supply stored before kept them in its lookup key, so the name as shown (cleaned)
-- found nothing. Each such name and key is cleaned here as one_line does it, then trimmed of whitespace.
-- Casefolding (in the key) neither makes nor removes those characters, so a key cleans to the key of the
-- cleaned name. A row whose cleaned key another row holds already (or a lower id or key takes first) keeps
-- its key: the two would be one name. A name of nothing but such characters is left as it is.

CREATE TEMP TABLE cleaned (old TEXT PRIMARY KEY, new TEXT NOT NULL) ON COMMIT DROP;

INSERT INTO cleaned (old, new)
SELECT old, new FROM (
    SELECT old, btrim(
        regexp_replace(
            regexp_replace(old, '[\u0009\u000a\u000b\u000c\u000d\u0085\u2028\u2029]+', ' ', 'g'),
            '[\u0001-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f'
            '\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0001]',
            '', 'g'
        ),
        chr(32) || chr(160) || chr(5760) || chr(8192) || chr(8193) || chr(8194) || chr(8195) || chr(8196)
        || chr(8197) || chr(8198) || chr(8199) || chr(8200) || chr(8201) || chr(8202) || chr(8239)
        || chr(8287) || chr(12288)
    ) AS new
    FROM (
        SELECT name AS old FROM sheets UNION SELECT name_key FROM sheets
        UNION SELECT character FROM supply_dice UNION SELECT character_key FROM supply_dice
        UNION SELECT item FROM supply_dice UNION SELECT item_key FROM supply_dice
    ) AS named
) AS done
WHERE new <> old AND new <> '';

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
