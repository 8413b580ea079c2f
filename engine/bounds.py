"""Declared bounds for every number, text and list a client may send or state may hold.

Nothing outside these bounds validates, so nothing unserialisable (a 65-bit integer, NaN,
a list nested past what the log can write) ever reaches a room's state. Game numbers
(counters, GP, 耐久力, 個体数…) stay within ±`MAX_NUMBER`; running counters (ids,
dice draws, versions) within `MAX_SERIAL`, the largest integer a JavaScript client reads
exactly. `Tx.set` validates every write against the field's declared type, so a result
computed from bounded inputs (a counter plus a delta) is refused when it leaves them.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import AfterValidator, BeforeValidator, Field, Strict
from pydantic_core import PydanticCustomError

__all__ = [
    "MAX_DEPTH",
    "MAX_ITEMS",
    "MAX_NUMBER",
    "MAX_SERIAL",
    "Count",
    "Exact",
    "Finite",
    "Id",
    "Json",
    "Name",
    "Number",
    "OnlyInt",
    "Paragraph",
    "Sentence",
    "Serial",
    "an_int",
    "depth",
]

MAX_NUMBER: Final = 1_000_000_000
MAX_SERIAL: Final = 2**53 - 1
MAX_DEPTH: Final = 32
MAX_ITEMS: Final = 200

# Every integer is strict (here, and `StrictInt` where a model declares its own bounds):
# `bool` is an `int` in Python, so lax mode would take `true` as 1, and 2.0 or "2" as 2.
# A JSON integer from any client, or a Python int the engine computes, is taken as it is.

#: a game number: a counter, GP, 耐久力, 個体数, a square's coordinate
Number = Annotated[int, Strict(), Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]
#: a game number that is never negative
Count = Annotated[int, Strict(), Field(ge=0, le=MAX_NUMBER)]
#: a running counter: versions, the id sequence, dice draws
Serial = Annotated[int, Strict(), Field(ge=0, le=MAX_SERIAL)]
#: any integer a JavaScript client reads exactly (a list index, a client's time stamp)
Exact = Annotated[int, Strict(), Field(ge=-MAX_SERIAL, le=MAX_SERIAL)]
#: a float that JSON can carry (no NaN, no ±inf); an integer is a float, a boolean is not
Finite = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=-MAX_SERIAL, le=MAX_SERIAL)]

#: an id of something in the state (a piece, a counter, a base, a player…)
Id = Annotated[str, Field(max_length=100)]
#: a name or a short label
Name = Annotated[str, Field(max_length=200)]
#: a sentence: a reason, a condition's text, a BCDice line
Sentence = Annotated[str, Field(max_length=2000)]
#: a paragraph: a summary, an effect's text, a note
Paragraph = Annotated[str, Field(max_length=4000)]


def depth(value: Any) -> int:
    """How deep lists and dicts nest in `value` (a scalar is 0)."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list | tuple):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def _shallow(value: Any) -> Any:
    if depth(value) > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def an_int(value: Any) -> Any:
    """Refuse all but an int (a boolean, 2.0, "2"), as a strict integer does."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


#: before an integer `Literal` (`Annotated[Literal[1, 3, 6], OnlyInt]`): a Literal compares
#: by equality, so even strict mode takes True as 1 and 3.0 as 3
OnlyInt = BeforeValidator(an_int)

#: free-form JSON (platform settings, a VTT's event): nested at most `MAX_DEPTH` deep
Json = Annotated[Any, AfterValidator(_shallow)]
