"""Base states and their transitions (seed 000 拠点の状態), as one data table.

How this works: a base is always in one `Status` (BASE-ST-1). Effects ask for a `Move`
(停止・励起・鎮静・再起動・撃破・再生); `TRANSITIONS` says what each move does in each
state, including the cancel rules of BASE-TR-2. A pair missing from the table has no
effect (a destroyed base ignores everything but 再生, BASE-ST-4 / BASE-TR-3). Permanent
bases never become stopped or destroyed (BASE-ATTR-3): `next_status` filters those out.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Final, Literal

__all__ = [
    "JA_MOVE",
    "JA_STATUS",
    "PERMANENT_NEVER",
    "STATUS_OF_JA",
    "TRANSITIONS",
    "CharSide",
    "Move",
    "Side",
    "Status",
    "effective",
    "next_status",
]

Side = Literal["pc", "enemy", "none"]  # a base's side
CharSide = Literal["pc", "enemy"]  # a character's side


class Status(StrEnum):
    """BASE-ST-1: the four states; exactly one at a time, 活動 by default."""

    ACTIVE = "active"
    STOPPED = "stopped"
    EXCITED = "excited"
    DESTROYED = "destroyed"


class Move(StrEnum):
    """What an effect (or GP reaching 0) asks of a base's state."""

    STOP = "stop"
    EXCITE = "excite"
    CALM = "calm"
    RESTART = "restart"
    DESTROY = "destroy"
    REGENERATE = "regenerate"


A, S, E, D = Status.ACTIVE, Status.STOPPED, Status.EXCITED, Status.DESTROYED

# state × move → new state. Missing pairs: no effect.
TRANSITIONS: Final[Mapping[tuple[Status, Move], Status]] = {
    (A, Move.STOP): S,  # BASE-ST-2
    (A, Move.EXCITE): E,  # BASE-ST-3
    (A, Move.DESTROY): D,  # BASE-GP-3
    (S, Move.EXCITE): A,  # BASE-TR-2: exciting a stopped base restarts it instead
    (S, Move.RESTART): A,  # BASE-ST-2 再起動
    (S, Move.DESTROY): D,  # BASE-GP-3
    (E, Move.STOP): A,  # BASE-TR-2: stopping an excited base calms it instead
    (E, Move.CALM): A,  # BASE-ST-3 鎮静
    (E, Move.DESTROY): D,  # BASE-GP-3
    (D, Move.REGENERATE): A,  # BASE-TR-1: default 活動; the effect may name another state
}

PERMANENT_NEVER: Final = frozenset({S, D})  # BASE-ATTR-3

JA_STATUS: Final[Mapping[Status, str]] = {A: "活動", S: "停止", E: "励起", D: "撃破"}
STATUS_OF_JA: Final[Mapping[str, Status]] = {ja: s for s, ja in JA_STATUS.items()}
JA_MOVE: Final[Mapping[Move, str]] = {
    Move.STOP: "停止", Move.EXCITE: "励起", Move.CALM: "鎮静", Move.RESTART: "再起動",
    Move.DESTROY: "撃破", Move.REGENERATE: "再生",
}


def next_status(current: Status, move: Move, permanent: bool = False) -> Status | None:
    """The state after `move`, or None when the move has no effect."""
    new = TRANSITIONS.get((current, move))
    if new is None or new == current or (permanent and new in PERMANENT_NEVER):
        return None
    return new


def effective(status: Status) -> frozenset[Status]:
    """The states a base counts as for conditions: 撃破 also counts as 停止 (BASE-ST-4)."""
    return frozenset({D, S}) if status is D else frozenset({status})
