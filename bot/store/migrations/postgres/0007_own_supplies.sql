-- 0007: a member's own supplies are kept by their user id. A supply a GM set for a member with no
-- decision-dice sheet was kept under the member's display name of that moment, so a nickname change hid
-- it: their next roll found none (DD-7). Such a row is now the member's own, character_key '' (a name
-- never keys to ''), shown under their current name. A row from before 0007 is theirs when its character
-- is none of its owner's decision sheets; of two such rows of one item (two nicknames), the one set or
-- rolled last becomes theirs and the other stays under its old name. The rows are ranked before any is
-- changed, so the order the update visits them in cannot matter.

UPDATE supply_dice SET character_key = ''
FROM (
    SELECT d.guild_id, d.owner_id, d.character_key, d.item_key,
           ROW_NUMBER() OVER (
               PARTITION BY d.guild_id, d.owner_id, d.item_key
               ORDER BY d.updated_at DESC, d.character_key DESC
           ) AS n
    FROM supply_dice AS d
    WHERE NOT EXISTS (
        SELECT 1 FROM sheets AS s
        WHERE s.guild_id = d.guild_id AND s.owner_id = d.owner_id
          AND s.system = 'decision' AND s.name_key = d.character_key
    )
) AS own
WHERE own.n = 1
  AND supply_dice.guild_id = own.guild_id AND supply_dice.owner_id = own.owner_id
  AND supply_dice.character_key = own.character_key AND supply_dice.item_key = own.item_key;
