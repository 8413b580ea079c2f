"""Issue 34: the table as one SVG picture (adapters/svg.py), drawn from a projection."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from adapter_support import Room

from komasync.adapters.svg import table_svg
from komasync.engine.views import Audience, View

NS = "{http://www.w3.org/2000/svg}"


def objects(svg: str) -> dict[str, ET.Element]:
    return {g.attrib["data-object"]: g for g in ET.fromstring(svg).iter(f"{NS}g")
            if "data-object" in g.attrib}


def test_the_tables_picture_shows_what_its_projection_holds() -> None:
    room = Room.build("demo_table.yaml")
    drawn = objects(table_svg(room.tree, title="卓 <1> & 2"))  # well-formed: escaped
    assert "ks-piece-knight" in drawn and "ks-piece-assassin" not in drawn
    assert not [g for g in drawn.values() if g.attrib.get("data-hidden")]
    svg = table_svg(room.tree)
    assert "時計 / Clock: 0/6" in svg  # a counter: a bar on the board beside the squares


def test_the_gms_picture_marks_what_the_table_did_not_see() -> None:
    room = Room.build("demo_table.yaml")
    gm = View(Audience("gm"), room.engine.state).tree
    svg = table_svg(gm, public=room.tree)
    drawn = objects(svg)
    assert drawn["ks-piece-assassin"].attrib["data-hidden"] == "1"
    assert drawn["ks-marker-pit"].attrib["data-hidden"] == "1"
    assert "data-hidden" not in drawn["ks-piece-knight"].attrib
    assert "非公開 / hidden" in ET.tostring(drawn["ks-piece-assassin"], encoding="unicode")
    # the GM-only counter on the board panel is marked too
    panel = [t for t in ET.fromstring(svg).iter(f"{NS}text") if t.attrib.get("data-hidden")]
    assert len(panel) == 2  # 破滅 / Doom (GM only) and HP (its owner's only)


def test_tower_defense_forts_show_their_durability() -> None:
    room = Room.build("tower_defense.yaml")
    svg = table_svg(room.tree)
    assert "耐久力 15/15" in svg
    assert 'data-object="ks-fort-f_left"' in svg
