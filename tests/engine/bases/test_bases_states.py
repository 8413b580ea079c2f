"""The base state table (BASE-ST-*, BASE-TR-*, BASE-ATTR-3), pure and table-driven."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from komasync.engine.bases.states import Move, Status, effective, next_status

A, S, E, D = Status.ACTIVE, Status.STOPPED, Status.EXCITED, Status.DESTROYED

# (current, move, permanent) → expected new state, None = no effect
CASES = [
    # BASE-ST-1 / BASE-ST-2 / BASE-ST-3: plain moves from 活動
    (A, Move.STOP, False, S),
    (A, Move.EXCITE, False, E),
    (A, Move.CALM, False, None),
    (A, Move.RESTART, False, None),
    (A, Move.DESTROY, False, D),  # BASE-GP-3
    # BASE-ST-2 再起動 / BASE-TR-2 exciting a stopped base restarts it instead
    (S, Move.RESTART, False, A),
    (S, Move.EXCITE, False, A),
    (S, Move.STOP, False, None),
    (S, Move.DESTROY, False, D),
    # BASE-ST-3 鎮静 / BASE-TR-2 stopping an excited base calms it instead
    (E, Move.CALM, False, A),
    (E, Move.STOP, False, A),
    (E, Move.EXCITE, False, None),
    (E, Move.DESTROY, False, D),
    # BASE-ST-4 / BASE-TR-3: a destroyed base changes only by 再生 (BASE-TR-1)
    (D, Move.EXCITE, False, None),
    (D, Move.STOP, False, None),
    (D, Move.RESTART, False, None),
    (D, Move.CALM, False, None),
    (D, Move.REGENERATE, False, A),
    (A, Move.REGENERATE, False, None),
    # BASE-ATTR-3: a permanent base never becomes stopped or destroyed
    (A, Move.STOP, True, None),
    (A, Move.DESTROY, True, None),
    (E, Move.DESTROY, True, None),
    (A, Move.EXCITE, True, E),
    (E, Move.STOP, True, A),  # the cancel rule still calms it (result is not 停止)
]


@pytest.mark.parametrize(("current", "move", "permanent", "expected"), CASES)
def test_bases_state_table(current: Status, move: Move, permanent: bool,
                           expected: Status | None) -> None:
    # BASE-ST-1 BASE-ST-2 BASE-ST-3 BASE-ST-4 BASE-TR-1 BASE-TR-2 BASE-TR-3 BASE-ATTR-3
    assert next_status(current, move, permanent) == expected


def test_bases_destroyed_counts_as_stopped() -> None:
    # BASE-ST-4: for conditions a destroyed base is also stopped
    assert effective(D) == {D, S}
    assert effective(E) == {E}


@given(st.sampled_from(list(Status)), st.sampled_from(list(Move)), st.booleans())
def test_bases_table_properties(current: Status, move: Move, permanent: bool) -> None:
    # BASE-ATTR-3 permanent never stops; BASE-ST-4 destroyed only regenerates
    new = next_status(current, move, permanent)
    if permanent:
        assert new not in (S, D)
    if current is D:
        assert new is None or move is Move.REGENERATE
    assert new != current
