"""komasync examples: one scenario per subsystem, each also a demo room of `serve --demo`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEMOS", "Demo"]


@dataclass(frozen=True)
class Demo:
    """A subsystem's demo room: the example it plays and the room id it has for good
    (users' databases, the README and the docs name these ids)."""

    subsystem: str
    room: str
    example: str


#: Each subsystem's demo, in the order `serve --demo` offers them: the first is the room
#: `demo`, the one printed first (and the one `--demo-scenario` replaces).
DEMOS: tuple[Demo, ...] = (
    Demo("tower_defense", "demo", "tower_defense.yaml"),
    Demo("bases", "demo-bases", "base_battle.yaml"),
    Demo("table", "demo-table", "demo_table.yaml"),
    Demo("grid", "demo-grid", "seamless_combat.yaml"),
    Demo("mass", "demo-mass", "mass_combat.yaml"),
    Demo("engagement", "demo-engagement", "engagement.yaml"),
)
