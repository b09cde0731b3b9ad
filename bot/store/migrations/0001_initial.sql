-- 0001: the first schema. Channel ids are global Discord snowflakes, so channel-scoped rows key on
-- channel_id and keep guild_id (NULL in direct messages) as a checked companion column.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE guild_settings (
    guild_id   INTEGER PRIMARY KEY,
    data       TEXT NOT NULL CHECK (json_valid(data)),
    updated_at TEXT NOT NULL
);

CREATE TABLE channel_settings (
    channel_id INTEGER PRIMARY KEY,
    guild_id   INTEGER NOT NULL,
    visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private', 'gm', 'blind'))
);

CREATE TABLE channel_gms (
    guild_id   INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    added_at   TEXT NOT NULL,
    PRIMARY KEY (guild_id, channel_id, user_id)
);

CREATE TABLE pending_modifiers (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER,
    channel_id     INTEGER NOT NULL,
    system         TEXT NOT NULL CHECK (system IN ('sysx', 'dn', 'rps', 'decision', 'cards')),
    target_user_id INTEGER,
    kind           TEXT NOT NULL,
    value          TEXT NOT NULL CHECK (json_valid(value)),
    uses           INTEGER NOT NULL CHECK (uses >= 1),
    -- for one player: uses still to take; for everyone (target NULL) each player's count is in modifier_uses
    uses_left      INTEGER NOT NULL CHECK (uses_left >= 0 AND uses_left <= uses),
    set_by         INTEGER NOT NULL,
    created_at     TEXT NOT NULL
);
CREATE INDEX pending_modifiers_by_channel ON pending_modifiers (channel_id, system);

CREATE TABLE modifier_uses (
    modifier_id INTEGER NOT NULL REFERENCES pending_modifiers (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    used        INTEGER NOT NULL CHECK (used >= 1),
    PRIMARY KEY (modifier_id, user_id)
);

CREATE TABLE sheets (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER NOT NULL,
    owner_id   INTEGER NOT NULL,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL,
    system     TEXT NOT NULL CHECK (system IN ('sysx', 'dn', 'rps', 'decision', 'cards')),
    active     INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
    data       TEXT NOT NULL CHECK (json_valid(data)),
    version    INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (guild_id, owner_id, name_key)
);
CREATE UNIQUE INDEX sheets_one_active ON sheets (guild_id, owner_id, system) WHERE active = 1;

CREATE TABLE shoes (
    channel_id INTEGER PRIMARY KEY,
    guild_id   INTEGER,
    decks      INTEGER NOT NULL CHECK (decks BETWEEN 1 AND 8),
    remaining  TEXT NOT NULL CHECK (json_valid(remaining)),
    discards   TEXT NOT NULL CHECK (json_valid(discards)),
    version    INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL
);

CREATE TABLE hands (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER,
    channel_id INTEGER NOT NULL,
    owner_id   INTEGER NOT NULL,
    state      TEXT NOT NULL,
    finished   INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
    cards      TEXT NOT NULL CHECK (json_valid(cards)),
    data       TEXT NOT NULL CHECK (json_valid(data)),
    version    INTEGER NOT NULL DEFAULT 1,
    message_id INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX hands_open_by_channel ON hands (channel_id, finished);

CREATE TABLE supply_dice (
    guild_id      INTEGER NOT NULL,
    owner_id      INTEGER NOT NULL,
    character     TEXT NOT NULL,
    character_key TEXT NOT NULL,
    item          TEXT NOT NULL,
    item_key      TEXT NOT NULL,
    die           INTEGER NOT NULL CHECK (die IN (0, 4, 6, 8, 10, 12)),
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (guild_id, owner_id, character_key, item_key)
);

CREATE TABLE pools (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id       INTEGER,
    channel_id     INTEGER NOT NULL,
    owner_id       INTEGER NOT NULL,
    name           TEXT NOT NULL,
    name_key       TEXT NOT NULL,
    skill          TEXT,
    goal           INTEGER NOT NULL CHECK (goal >= 1),
    base           INTEGER NOT NULL,
    time_per_check INTEGER NOT NULL CHECK (time_per_check >= 1),
    time_unit      TEXT NOT NULL,
    no_loss        INTEGER NOT NULL CHECK (no_loss IN (0, 1)),
    pool           INTEGER NOT NULL DEFAULT 0,
    checks_made    INTEGER NOT NULL DEFAULT 0 CHECK (checks_made >= 0),
    checks         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(checks)),
    state          TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed', 'stopped')),
    message_id     INTEGER,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
CREATE UNIQUE INDEX pools_running_name ON pools (channel_id, name_key) WHERE state = 'running';

CREATE TABLE rolls (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    system      TEXT NOT NULL,
    command     TEXT NOT NULL,
    visibility  TEXT NOT NULL CHECK (visibility IN ('public', 'private', 'gm', 'blind')),
    inputs      TEXT NOT NULL CHECK (json_valid(inputs)),
    dice        TEXT NOT NULL CHECK (json_valid(dice)),
    result      TEXT NOT NULL,
    summary     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    revealed_by INTEGER,
    revealed_at TEXT
);
CREATE INDEX rolls_by_channel ON rolls (channel_id, id);
