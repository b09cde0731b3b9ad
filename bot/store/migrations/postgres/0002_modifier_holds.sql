-- 0002 on PostgreSQL: as ../0002_modifier_holds.sql (a roll's hold on a GM modifier's use, as a row).

CREATE TABLE modifier_holds (
    modifier_id BIGINT NOT NULL REFERENCES pending_modifiers (id) ON DELETE CASCADE,
    user_id     BIGINT NOT NULL,
    ticket      TEXT NOT NULL,
    expires_at  DOUBLE PRECISION NOT NULL
);
CREATE INDEX modifier_holds_by_modifier ON modifier_holds (modifier_id, user_id);
CREATE INDEX modifier_holds_by_ticket ON modifier_holds (ticket);
