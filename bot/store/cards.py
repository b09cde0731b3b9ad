"""Shoes and hands (BJ-1): every draw is written with version checks, so a card is never drawn twice."""

from __future__ import annotations

import asyncio
import builtins
import json
import random
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from bot.core.cards import Card, Shoe, check_decks, parse_cards
from bot.core.errors import RuleError
from bot.store._util import dumps, json_column_read_back, now_text, parse_time
from bot.store.db import Database, Row, Tx
from bot.store.errors import Conflict, InvalidData, MovedOn, NotFound
from bot.store.log import RollLogRepository
from bot.store.models import MAX_HAND_JSON, HandRecord, RollRecord
from bot.store.modifiers import ModifierRepository, ModifierTicket

_HAND_COLUMNS = (
    "id, guild_id, channel_id, owner_id, state, finished, cards, data, version, message_id, "
    "created_at, updated_at"
)
_HAND_WITH_SHOE = (
    "SELECT "
    + ", ".join(f"h.{column.strip()}" for column in _HAND_COLUMNS.split(","))
    + ", s.decks AS shoe_decks, s.remaining AS shoe_remaining, s.discards AS shoe_discards, "
    "s.version AS shoe_version FROM hands AS h LEFT JOIN shoes AS s ON s.channel_id = h.channel_id "
    "WHERE h.id = ? AND h.channel_id = ? AND h.guild_id IS ?"
)
MAX_STATE = 40
# a hand that does not exist and one dealt elsewhere read the same: ids cannot be probed
_NOT_IN_CHANNEL = "There is no hand {hand_id} in this channel."
_MOVED_ON = "This hand has already moved on (a double click?); nothing was drawn."
_SHOE_MOVED = "The shoe changed while you were playing (another draw came first); try again."
_T = TypeVar("_T")
# the log row of a hand that has ended, from the hand as written (its id included)
LogFor = Callable[[HandRecord], RollRecord]
# shoe writes are counted per channel, in this many buckets (bounded memory; two channels that share a
# bucket only make each other's reads look stale, which costs a read)
_BUCKET_BITS = 12
SHOE_WRITE_BUCKETS = 1 << _BUCKET_BITS


class ShoeRead(NamedTuple):
    """A channel's shoe as this process knows it (read beside a hand by `CardRepository.hand_with_shoe`, or
    as its last write left it): the shoe, its version, its channel, and the repository's count of that
    channel's shoe writes at the time (`CardRepository.shoe_read_current`)."""

    shoe: Shoe
    version: int
    channel_id: int
    writes: tuple[int, int]


def write_bucket(channel_id: int) -> int:
    """Which count a channel's shoe writes go to. A snowflake's low bits count the ids its worker made
    (often the same few), so its bits are mixed (Fibonacci hashing) rather than taken modulo."""
    return ((channel_id * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> (64 - _BUCKET_BITS)


class _ShoeLock(asyncio.Lock):
    """A channel's shoe lock, and the shoe as the last write in this process left it (`known_shoe`): the
    next move waiting on the lock draws from it instead of reading the shoe again."""

    carried: ShoeRead | None = None


class Written(NamedTuple):
    """A hand as a write left it, and the id of the log row written with it (None when none was)."""

    record: HandRecord
    log_id: int | None


def _codes_json(cards: tuple[Card, ...]) -> str:
    return dumps([card.code for card in cards])


def _code_list(text: str) -> Any:
    """A card-code column (a JSON array of codes) decoded; the caller checks what the codes are."""
    return json.loads(text)


def shoe_to_columns(shoe: Shoe) -> tuple[int, str, str]:
    """A shoe as (decks, remaining codes JSON, discard codes JSON)."""
    return shoe.decks, _codes_json(shoe.remaining), _codes_json(shoe.discards)


def shoe_from_columns(decks: int, remaining: str, discards: str) -> Shoe:
    """A shoe back from its columns."""
    return Shoe(
        decks=decks,
        remaining=parse_cards(_code_list(remaining)),
        discards=parse_cards(_code_list(discards)),
    )


def _hand(row: Row | Mapping[str, Any], cards: tuple[str, ...] | None = None, data: Any = None) -> HandRecord:
    """A hand's record from its row; ``cards`` and ``data``, when given, are what its columns read as
    (a write that has them at hand spares decoding the text it just encoded)."""
    return HandRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        owner_id=row["owner_id"],
        state=row["state"],
        finished=bool(row["finished"]),
        cards=tuple(_code_list(row["cards"])) if cards is None else cards,
        data=json.loads(row["data"]) if data is None else data,
        version=row["version"],
        message_id=row["message_id"],
        created_at=parse_time(row["created_at"]),
        updated_at=parse_time(row["updated_at"]),
    )


# A move's write. `finished` is in the SET only when the move ends the hand: a column of an index in the
# SET makes SQLite rewrite that index's entry (hands_open_by_channel), even to the same value: one more
# page written per move.
_MOVE_SET = "UPDATE hands SET state = ?, cards = ?, data = ?, version = ?, updated_at = ?, "
_MOVE_WHERE = (
    "message_id = COALESCE(?, message_id) WHERE id = ? AND version = ? AND finished = 0 "
    "RETURNING id, guild_id, channel_id, owner_id, message_id, created_at"
)
_MOVE = _MOVE_SET + _MOVE_WHERE
_MOVE_ENDING = _MOVE_SET + "finished = 1, " + _MOVE_WHERE
# a move that goes on, with the shoe it drew from, in one statement (bot/store/migrations/0004_hand_moves.sql)
_HAND_MOVE = (
    "INSERT INTO hand_moves (hand_id, expected_version, state, cards, data, updated_at, message_id, decks, "
    "remaining, discards, shoe_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# a move that ends the hand, with the shoe it drew from (if it drew) and its log row, in one statement
# (bot/store/migrations/0005_hand_endings.sql). PostgreSQL's trigger hands the log row's id back in the
# view's row; SQLite's RETURNING gives back what was inserted into the view, so there it is read from the
# hand, where the trigger left it (COALESCE reads the hand only when the id did not come back).
_HAND_ENDING = (
    "INSERT INTO hand_endings (hand_id, expected_version, state, cards, data, updated_at, message_id, "
    "decks, remaining, discards, shoe_version, roll_guild_id, roll_channel_id, user_id, system, command, "
    "visibility, inputs, dice, result, summary, created_at, revealed_by, revealed_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "RETURNING COALESCE(hand_endings.log_id, "
    "(SELECT hands.log_id FROM hands WHERE hands.id = hand_endings.hand_id)) AS log_id"
)


async def _movable(tx: Tx, hand_id: int, expected_version: int) -> int:
    """The channel of a hand that can make a move from ``expected_version``; NotFound, or Conflict (moved
    on, or finished), if it cannot."""
    row = await tx.one("SELECT channel_id, version, finished FROM hands WHERE id = ?", (hand_id,))
    if row is None:
        raise NotFound(f"There is no hand {hand_id}; it may be from an older game.")
    if row["version"] != expected_version:
        raise Conflict(_MOVED_ON)
    if row["finished"]:
        raise Conflict("This hand is finished; start a new one.")
    return int(row["channel_id"])


def _codes(cards: Iterable[Card | str]) -> builtins.list[str]:
    codes: builtins.list[str] = []
    try:
        for card in cards:
            codes.append(card.code if isinstance(card, Card) else Card.parse(card).code)
    except RuleError as err:
        raise InvalidData(str(err)) from None
    return codes


def _hand_data(hand: Mapping[str, Any] | str) -> tuple[str, Any]:
    """A hand's data column, and the value it reads back as."""
    if not isinstance(hand, Mapping | str):
        raise InvalidData("A hand is stored as a JSON object (the core's Hand.to_dict()).")
    text, value = json_column_read_back(
        dict(hand) if isinstance(hand, Mapping) else hand, "hand", MAX_HAND_JSON
    )
    if not text.startswith("{"):
        raise InvalidData("A hand is stored as a JSON object (the core's Hand.to_dict()).")
    return text, value


def _is_state(state: object) -> bool:
    return isinstance(state, str) and 1 <= len(state) <= MAX_STATE


def _state(state: str) -> str:
    if not _is_state(state):
        raise InvalidData(f"A hand's state is a word of 1 to {MAX_STATE} characters.")
    return state


class CardRepository:
    """Each channel's shoe and the hands played from it."""

    def __init__(self, db: Database, modifiers: ModifierRepository | None = None) -> None:
        self._db = db
        self._modifiers = modifiers if modifiers is not None else ModifierRepository(db)
        # Weak values: a channel's lock lives while some coroutine holds or waits on it, then goes away,
        # and the shoe it carries with it.
        self._shoe_locks: weakref.WeakValueDictionary[int, _ShoeLock] = weakref.WeakValueDictionary()
        # every write of a shoe counts one when it is sent and one when it has settled (`_counted`), in its
        # channel's bucket (or in the count of all channels, when its channel is not known before it
        # settles): a shoe read while its counts stood still is the shoe as this process last wrote it
        self._all_writes = 0
        self._channel_writes = [0] * SHOE_WRITE_BUCKETS

    def shoe_lock(self, channel_id: int) -> asyncio.Lock:
        """The in-process lock for a channel's shoe: hold it around read shoe, compute, write.

        In-process draws then never hit the version check; the check stays for other processes.
        """
        lock = self._shoe_locks.get(channel_id)
        if lock is None:
            lock = _ShoeLock()
            self._shoe_locks[channel_id] = lock
        return lock

    def shoe_busy(self, channel_id: int) -> bool:
        """True while a move in this process holds the channel's `shoe_lock`: its write will move the shoe."""
        lock = self._shoe_locks.get(channel_id)
        return lock is not None and lock.locked()

    def shoe_read_current(self, read: ShoeRead) -> bool:
        """True when no write of the read's channel's shoe was sent or settled in this process since ``read``
        was taken.

        Checked while holding the channel's `shoe_lock`, that makes ``read`` what `get_shoe` would read now:
        a move or a deal holds the lock while its write is in flight. Any other write (a reshuffle, another
        process) is still caught by the version check of the write that follows: a Conflict, read again.
        """
        return read.writes == self._writes(read.channel_id)

    def known_shoe(self, channel_id: int, read: ShoeRead | None = None) -> ShoeRead | None:
        """The channel's shoe as this process knows it now, without reading it: ``read`` (taken with a
        hand) or the shoe the last write here left (kept while someone holds or waits on the channel's
        `shoe_lock`), whichever is still current; None when neither is. Use it under the lock."""
        lock = self._shoe_locks.get(channel_id)
        for known in (read, lock.carried if lock is not None else None):
            if known is not None and known.channel_id == channel_id and self.shoe_read_current(known):
                return known
        return None

    def _writes(self, channel_id: int) -> tuple[int, int]:
        return self._all_writes, self._channel_writes[write_bucket(channel_id)]

    def _count(self, channel_id: int | None) -> None:
        if channel_id is None:
            self._all_writes += 1
        else:
            self._channel_writes[write_bucket(channel_id)] += 1

    def _carry(self, channel_id: int, shoe: Shoe, version: int) -> None:
        """Remember the shoe a write just left, on the channel's lock while it lives (`known_shoe`)."""
        lock = self._shoe_locks.get(channel_id)
        if lock is not None:
            lock.carried = ShoeRead(shoe, version, channel_id, self._writes(channel_id))

    async def _shoe_write(self, work: Callable[[Tx], Awaitable[_T]], channel_id: int | None) -> _T:
        """Run a unit that writes a shoe, counted before it is sent and after it settles."""
        return await self._counted(self._db.run(work), channel_id)

    async def _counted(self, write: Awaitable[_T], channel_id: int | None) -> _T:
        """Await a write of ``channel_id``'s shoe (None: not known yet), counted before it is sent and after
        it settles."""
        self._count(channel_id)
        try:
            return await write
        finally:
            self._count(channel_id)

    async def get_shoe(
        self, guild_id: int | None, channel_id: int, decks: int = 1, rng: random.Random | None = None
    ) -> tuple[Shoe, int]:
        """The channel's shoe and its version; a channel without one gets a fresh shuffled shoe of ``decks``.

        An existing shoe keeps its own number of decks until it is reshuffled with another count.
        """
        select = "SELECT decks, remaining, discards, version FROM shoes WHERE channel_id = ?"
        row = await self._db.one(select, (channel_id,))
        if row is None:
            try:
                fresh = Shoe.fresh(rng or random.SystemRandom(), check_decks(decks))
            except RuleError as err:
                raise InvalidData(str(err)) from None
            count, remaining, discards = shoe_to_columns(fresh)

            async def create(tx: Tx) -> Row:
                await tx.execute(
                    "INSERT INTO shoes (channel_id, guild_id, decks, remaining, discards, version, "
                    "updated_at) VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (channel_id) DO NOTHING",
                    (channel_id, guild_id, count, remaining, discards, now_text()),
                )
                created = await tx.one(select, (channel_id,))
                assert created is not None
                return created

            row = await self._shoe_write(create, channel_id)
        assert row is not None  # read, or created
        return shoe_from_columns(row["decks"], row["remaining"], row["discards"]), int(row["version"])

    async def put_shoe(self, channel_id: int, shoe: Shoe, shoe_version: int) -> int:
        """Replace the channel's shoe if it is still at ``shoe_version`` (else Conflict); the new version."""
        columns = shoe_to_columns(shoe)
        return await self._shoe_write(
            lambda tx: self._write_columns(tx, channel_id, columns, shoe_version), channel_id
        )

    @staticmethod
    async def _write_columns(
        tx: Tx, channel_id: int, columns: tuple[int, str, str], shoe_version: int, stamp: str | None = None
    ) -> int:
        """Replace the shoe if it is still at ``shoe_version`` (else Conflict); returns the new version.

        ``stamp``: the write's time, when the caller has it already (the move's, for the hand beside it).
        """
        decks, remaining, discards = columns
        outcome = await tx.execute(
            "UPDATE shoes SET decks = ?, remaining = ?, discards = ?, version = version + 1, updated_at = ? "
            "WHERE channel_id = ? AND version = ?",
            (decks, remaining, discards, stamp or now_text(), channel_id, shoe_version),
        )
        if outcome.rowcount != 1:
            raise Conflict(_SHOE_MOVED)
        return shoe_version + 1

    async def create_hand(
        self,
        guild_id: int | None,
        channel_id: int,
        owner_id: int,
        hand: Mapping[str, Any] | str,
        *,
        state: str,
        cards: Iterable[Card | str],
        shoe: Shoe | None = None,
        shoe_version: int | None = None,
        finished: bool = False,
        message_id: int | None = None,
        modifiers: ModifierTicket | None = None,
    ) -> HandRecord:
        """`create_hand_logged` without a log row."""
        written = await self.create_hand_logged(
            guild_id,
            channel_id,
            owner_id,
            hand,
            state=state,
            cards=cards,
            shoe=shoe,
            shoe_version=shoe_version,
            finished=finished,
            message_id=message_id,
            modifiers=modifiers,
        )
        return written.record

    async def create_hand_logged(
        self,
        guild_id: int | None,
        channel_id: int,
        owner_id: int,
        hand: Mapping[str, Any] | str,
        *,
        state: str,
        cards: Iterable[Card | str],
        shoe: Shoe | None = None,
        shoe_version: int | None = None,
        finished: bool = False,
        message_id: int | None = None,
        modifiers: ModifierTicket | None = None,
        log: LogFor | None = None,
    ) -> Written:
        """Store a new hand and the shoe it drew from, in one transaction (Conflict if the shoe moved on).

        ``modifiers``: GM modifier uses reserved for this hand (GM-3), taken in the same transaction, so
        a hand is never dealt without taking them nor are they taken for a hand that was not dealt. On a
        Conflict they stay reserved for the caller's retry; the caller releases them when it gives up.
        ``log``: for a hand dealt finished (involuntary), its log row from the stored hand, written in the
        same transaction: a hand is never over without its roll in the log.
        """
        if (shoe is None) != (shoe_version is None):
            raise InvalidData("A new shoe needs the shoe version it was computed from.")
        (data, _), codes, stamp = _hand_data(hand), _codes(cards), now_text()
        shoe_columns = shoe_to_columns(shoe) if shoe is not None else None
        take = self._modifiers.taker(modifiers)

        async def work(tx: Tx) -> Written:
            if shoe_columns is not None and shoe_version is not None:
                await self._write_columns(tx, channel_id, shoe_columns, shoe_version, stamp)
            await take(tx)
            row = await tx.one(
                "INSERT INTO hands (guild_id, channel_id, owner_id, state, finished, cards, data, version, "
                f"message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?) "
                f"RETURNING {_HAND_COLUMNS}",
                (
                    guild_id,
                    channel_id,
                    owner_id,
                    _state(state),
                    int(finished),
                    dumps(codes),
                    data,
                    message_id,
                    stamp,
                    stamp,
                ),
            )
            assert row is not None
            record = _hand(row)
            log_id = await RollLogRepository.inserter(log(record))(tx) if log is not None else None
            return Written(record, log_id)

        async with self._modifiers.settling(modifiers):
            if shoe is None or shoe_version is None:
                return await self._db.run(work)
            written = await self._shoe_write(work, channel_id)
            self._carry(channel_id, shoe, shoe_version + 1)  # at once: the counts must be the write's
            return written

    async def get_hand(self, hand_id: int) -> HandRecord:
        """A hand by id (open or finished)."""
        row = await self._db.one(f"SELECT {_HAND_COLUMNS} FROM hands WHERE id = ?", (hand_id,))
        if row is None:
            raise NotFound(f"There is no hand {hand_id}; it may be from an older game.")
        return _hand(row)

    async def hand_in(self, hand_id: int, guild_id: int | None, channel_id: int) -> HandRecord:
        """A hand by id, only if it was dealt in this guild and channel.

        A hand that does not exist and a hand dealt elsewhere raise the same NotFound, so a forged id
        tells the sender nothing about other channels' hands.
        """
        row = await self._db.one(
            f"SELECT {_HAND_COLUMNS} FROM hands WHERE id = ? AND channel_id = ? AND guild_id IS ?",
            (hand_id, channel_id, guild_id),
        )
        if row is None:
            raise NotFound(_NOT_IN_CHANNEL.format(hand_id=hand_id))
        return _hand(row)

    async def hand_with_shoe(
        self, hand_id: int, guild_id: int | None, channel_id: int
    ) -> tuple[HandRecord, ShoeRead | None]:
        """`hand_in`, and the channel's shoe read in the same statement (None while it has none): a move
        reads both in one statement.

        Use the shoe only under the channel's `shoe_lock` and while `shoe_read_current` holds; read it with
        `get_shoe` otherwise.
        """
        writes = self._writes(channel_id)  # before the read: a write settling while it runs makes it stale
        row = await self._db.one(_HAND_WITH_SHOE, (hand_id, channel_id, guild_id))
        if row is None:
            raise NotFound(_NOT_IN_CHANNEL.format(hand_id=hand_id))
        record = _hand(row)
        if row["shoe_version"] is None:
            return record, None
        shoe = shoe_from_columns(row["shoe_decks"], row["shoe_remaining"], row["shoe_discards"])
        return record, ShoeRead(shoe, int(row["shoe_version"]), channel_id, writes)

    async def open_hand_of(self, guild_id: int | None, channel_id: int, owner_id: int) -> int | None:
        """The id of ``owner_id``'s latest hand still in play in the channel, or None."""
        row = await self._db.one(
            "SELECT id FROM hands WHERE channel_id = ? AND guild_id IS ? AND finished = 0 AND owner_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (channel_id, guild_id, owner_id),
        )
        return None if row is None else int(row["id"])

    async def open_hands(self, guild_id: int | None, channel_id: int) -> builtins.list[HandRecord]:
        """The channel's hands still in play, oldest first."""
        rows = await self._db.all(
            f"SELECT {_HAND_COLUMNS} FROM hands WHERE channel_id = ? AND guild_id IS ? AND finished = 0 "
            "ORDER BY id",
            (channel_id, guild_id),
        )
        return [_hand(row) for row in rows]

    async def recent_hands(
        self, guild_id: int | None, channel_id: int, n: int = 10
    ) -> builtins.list[HandRecord]:
        """The channel's last ``n`` finished hands, newest first (kept for the log)."""
        rows = await self._db.all(
            f"SELECT {_HAND_COLUMNS} FROM hands WHERE channel_id = ? AND guild_id IS ? AND finished = 1 "
            "ORDER BY id DESC LIMIT ?",
            (channel_id, guild_id, max(0, n)),
        )
        return [_hand(row) for row in rows]

    async def apply(
        self,
        hand_id: int,
        expected_version: int,
        hand: Mapping[str, Any] | str,
        *,
        state: str,
        cards: Iterable[Card | str],
        shoe: Shoe | None = None,
        shoe_version: int | None = None,
        finished: bool = False,
        message_id: int | None = None,
    ) -> HandRecord:
        """`apply_logged` without a log row."""
        written = await self.apply_logged(
            hand_id,
            expected_version,
            hand,
            state=state,
            cards=cards,
            shoe=shoe,
            shoe_version=shoe_version,
            finished=finished,
            message_id=message_id,
        )
        return written.record

    async def apply_logged(
        self,
        hand_id: int,
        expected_version: int,
        hand: Mapping[str, Any] | str,
        *,
        state: str,
        cards: Iterable[Card | str],
        shoe: Shoe | None = None,
        shoe_version: int | None = None,
        finished: bool = False,
        message_id: int | None = None,
        log: LogFor | None = None,
        base: HandRecord | None = None,
    ) -> Written:
        """Write a hand's move (and the shoe it drew from) if neither moved on; a Conflict changes nothing.

        ``expected_version`` is the hand version the move was computed from; ``shoe_version`` the shoe's
        (required when ``shoe`` is given). Both checks and both writes happen in one transaction, and
        ``log``'s row for a move that ends the hand too: never a finished hand without its roll logged.
        ``base``: the hand's record as read at ``expected_version``, when the caller has it (checked to be
        that hand at that version).
        """
        if (shoe is None) != (shoe_version is None):
            raise InvalidData("A new shoe needs the shoe version it was computed from.")
        if base is not None and (base.id != hand_id or base.version != expected_version):
            raise InvalidData("A move's base record is the hand at the version the move was computed from.")
        (data, data_value), codes = _hand_data(hand), _codes(cards)
        cards_text = dumps(codes)
        stamp = now_text()
        goes_on = not finished and log is None
        ends = finished and log is not None
        if ((goes_on and shoe is not None) or ends) and base is not None and _is_state(state):
            # one statement, which checks both versions: a move that goes on and draws, or one that ends
            # the hand (and logs it); the columns it did not write are the base's (the trigger found the
            # hand at base's version)
            written = {
                "state": state,
                "cards": tuple(codes),
                "data": data_value,
                "version": expected_version + 1,
                "message_id": base.message_id if message_id is None else message_id,
                "updated_at": parse_time(stamp),
                "finished": finished,
            }
            record = base.model_copy(update=written)
            move = (hand_id, expected_version, state, cards_text, data, stamp, message_id)
            columns = shoe_to_columns(shoe) if shoe is not None else (None, None, None)
            roll = RollLogRepository.row_params(log(record)) if log is not None else None
            log_id = await self._move(move, columns, shoe_version, roll, base.channel_id)
            if shoe is not None and shoe_version is not None:
                self._carry(base.channel_id, shoe, shoe_version + 1)
            return Written(record, log_id)
        shoe_columns = shoe_to_columns(shoe) if shoe is not None else None

        async def work(tx: Tx) -> Written:
            try:
                checked = _state(state)
            except InvalidData:  # refused in the order of a move's checks: the hand, the shoe, then this
                channel_id = await _movable(tx, hand_id, expected_version)
                if shoe_columns is not None and shoe_version is not None:
                    await self._write_columns(tx, channel_id, shoe_columns, shoe_version)
                raise
            written = {
                "state": checked,
                "cards": cards_text,
                "data": data,
                "version": expected_version + 1,
                "updated_at": stamp,
            }
            # checked and written in one statement; the columns it kept come back (no read before it)
            row = await tx.one(
                _MOVE_ENDING if finished else _MOVE,
                (*written.values(), message_id, hand_id, expected_version),
            )
            if row is None:
                await _movable(tx, hand_id, expected_version)
                raise Conflict(_MOVED_ON)  # not reached: the update found no row that could move
            record = _hand({**dict(row), **written, "finished": finished}, tuple(codes), data_value)
            if shoe_columns is not None and shoe_version is not None:
                await self._write_columns(tx, record.channel_id, shoe_columns, shoe_version, stamp)
            log_id = await RollLogRepository.inserter(log(record))(tx) if log is not None else None
            return Written(record, log_id)

        if shoe is None or shoe_version is None:
            return await self._db.run(work)
        done = await self._shoe_write(work, base.channel_id if base is not None else None)
        self._carry(done.record.channel_id, shoe, shoe_version + 1)
        return done

    async def _move(
        self,
        move: tuple[Any, ...],
        shoe: tuple[int | None, str | None, str | None],
        shoe_version: int | None,
        roll: Sequence[Any] | None,
        channel_id: int,
    ) -> int | None:
        """Write a move in one statement whose trigger checks the hand's and the shoe's versions: one that
        goes on and the shoe it drew from (migration 0004), or, with its ``roll``'s log row, one that ends
        the hand (0005; ``shoe_version`` None: it drew nothing). The log row's id; a Conflict, or NotFound,
        as `apply_logged`'s unit would raise."""
        hand_id, expected_version = move[0], move[1]
        try:
            if roll is None:
                write: Awaitable[Any] = self._db.execute(_HAND_MOVE, (*move, *shoe, shoe_version))
            else:
                write = self._db.one(_HAND_ENDING, (*move, *shoe, shoe_version, *roll))
            done = await (self._counted(write, channel_id) if shoe_version is not None else write)
        except MovedOn as moved:
            if moved.what == "shoe":
                raise Conflict(_SHOE_MOVED) from None
            await self._db.run(lambda tx: _movable(tx, hand_id, expected_version), write=False)
            raise Conflict(_MOVED_ON) from None  # not reached: the hand was not at that version
        return None if roll is None else int(done["log_id"])

    async def set_message_id(self, hand_id: int, message_id: int) -> None:
        """Remember which message shows the hand (no version change: it is not a move)."""
        outcome = await self._db.execute(
            "UPDATE hands SET message_id = ? WHERE id = ?", (message_id, hand_id)
        )
        if outcome.rowcount == 0:
            raise NotFound(f"There is no hand {hand_id}.")

    async def in_play(self, guild_id: int | None, channel_id: int) -> builtins.list[Card]:
        """Every card held by the channel's open hands."""
        return [card for hand in await self.open_hands(guild_id, channel_id) for card in hand.card_objects]

    async def reshuffle(
        self, guild_id: int | None, channel_id: int, rng: random.Random, decks: int | None = None
    ) -> tuple[Shoe, int]:
        """Shuffle every card not in an open hand into a new shoe (BJ-1), optionally with a new deck count.

        Read, shuffle on the event loop (``rng`` never leaves its thread), then write if the shoe did not
        move meanwhile: a deal or a draw in between makes this a Conflict that changes nothing.
        """

        async def read(tx: Tx) -> tuple[builtins.list[Row], Row | None]:
            rows = await tx.all(
                "SELECT cards FROM hands WHERE channel_id = ? AND guild_id IS ? AND finished = 0",
                (channel_id, guild_id),
            )
            return rows, await tx.one("SELECT decks, version FROM shoes WHERE channel_id = ?", (channel_id,))

        rows, current = await self._db.run(read, write=False)
        in_play = [Card.parse(code) for row in rows for code in _code_list(row["cards"])]
        try:
            count = check_decks(decks if decks is not None else (current["decks"] if current else 1))
            shoe = Shoe(decks=count, remaining=()).reshuffle(rng, in_play)
        except RuleError as err:
            raise InvalidData(str(err)) from None
        columns = shoe_to_columns(shoe)

        async def write(tx: Tx) -> int:
            if current is None:
                outcome = await tx.execute(
                    "INSERT INTO shoes (channel_id, guild_id, decks, remaining, discards, version, "
                    "updated_at) VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (channel_id) DO NOTHING",
                    (channel_id, guild_id, *columns, now_text()),
                )
                if outcome.rowcount != 1:
                    raise Conflict(_SHOE_MOVED)
                return 1
            return await self._write_columns(tx, channel_id, columns, int(current["version"]))

        return shoe, await self._shoe_write(write, channel_id)
