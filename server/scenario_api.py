"""The scenario editor's HTTP routes (issue 32; /work/notes/editor_contract.md): templates,
open, check, save, a room from the editor's data, and a preview as GM and players see it.

One way to do each thing: the editor's data is written as the YAML a GM would save
(scenario_yaml.py) and that text goes through `scenario check`'s own check and
`room create`'s own room building, so sentences, lines and state are theirs.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import PurePath
from typing import Any, TypeVar

import orjson
import yaml
from aiohttp import web

from ..engine.errors import Text
from ..engine.scenario import build_room, load_scenario
from ..engine.scenario_file import Problem, ScenarioError, check_scenario_text, yaml_problem
from ..engine.views import GM, Audience, View
from ..examples import DEMOS
from .app import SERVER_KEY, Komasync, _throttled
from .errors import AUTH_FAILED, BAD_MESSAGE, error_frame
from .gm_key import gm_key_ok
from .scenario_yaml import as_json, scenario_text

__all__ = ["MAX_DEPTH", "MAX_NODES", "MAX_TEXT", "add_routes", "problem_json", "templates"]

#: The largest YAML text the editor sends (the examples are about 10 kB).
MAX_TEXT = 256 * 1024
#: A scenario's data, however written (aliases expanded): this many values at most,
MAX_NODES = 50_000
#: nested at most this deep.
MAX_DEPTH = 32
DEFAULT_FILE = "scenario.yaml"
WHERE = "/api/scenario"  # what failed secrets count against, as /api/doctor's

TOO_BIG = Text("シナリオが大きすぎます（{n}）", "the scenario is too large ({n})")
TOO_DEEP = Text("シナリオの入れ子が深すぎます（{n}段まで）",
                "the scenario nests too deep (at most {n} levels)")
NEED = Text("{fields} が必要です", "need {fields}")
NOT_TEXT = Text("「{field}」は文字列にしてください", "'{field}' must be a text")
NOT_OBJECT = Text("「{field}」は「キー: 値」の組（JSONオブジェクト）にしてください",
                  "'{field}' must be key: value pairs (a JSON object)")
NOT_JSON = Text("JSONとして読めません", "not valid JSON")


class BadInput(Exception):
    """A request the editor should never send: answered 400 with what is wrong."""

    def __init__(self, text: Text) -> None:
        super().__init__(text.en)
        self.text = text


def _bad(text: Text) -> web.Response:
    said = BAD_MESSAGE.text
    reason = Text(said.ja.format(detail=text.ja), said.en.format(detail=text.en))
    return _json(error_frame(BAD_MESSAGE, None, reason), 400)


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(body), status=status, content_type="application/json")


# -- problems as the editor reads them --------------------------------------------------------

_RULE = re.compile(r"\b[A-Z]+(?:-[A-Z0-9]+)+\b")
_PAIRS = (("「", "」"), ("(", ")"), ("（", "）"), ("『", "』"))


def problem_json(p: Problem) -> dict[str, Any]:
    """A check's Problem for the editor: where in the data, the line, ja, en and rule."""
    ja, en = _split(p.message)
    rule = _RULE.findall(ja) or _RULE.findall(en)
    return {"path": list(p.path), "line": p.line, "where": p.where, "ja": ja, "en": en,
            "rule": rule[-1] if rule else None}


def _split(message: str) -> tuple[str, str]:
    """`ja / en` at the " / " outside any bracket (a name like 「騎士 / Knight」 stays whole)."""
    for m in re.finditer(" / ", message):
        ja = message[: m.start()]
        if all(ja.count(a) == ja.count(b) for a, b in _PAIRS):
            return ja, message[m.end():]
    return message, message


# -- limits on what is read ---------------------------------------------------------------------

def _budget(value: Any) -> None:
    """Refuse data past MAX_NODES values or MAX_DEPTH levels (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    count = 0
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise BadInput(TOO_BIG.format(n=f"> {MAX_NODES}"))
        if depth > MAX_DEPTH:
            raise BadInput(TOO_DEEP.format(n=MAX_DEPTH))
        if isinstance(item, dict):
            stack += [(v, depth + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, depth + 1) for v in item]


def _node_budget(node: yaml.Node | None) -> None:
    """The same limits on a YAML node graph, every alias counted where it is used (so a
    'billion laughs' file is refused before it is ever expanded)."""
    stack: list[tuple[Any, int]] = [(node, 0)] if node is not None else []
    count = 0
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise BadInput(TOO_BIG.format(n=f"> {MAX_NODES}"))
        if depth > MAX_DEPTH:
            raise BadInput(TOO_DEEP.format(n=MAX_DEPTH))
        if isinstance(item, yaml.MappingNode):
            stack += [(n, depth + 1) for pair in item.value for n in pair]
        elif isinstance(item, yaml.SequenceNode):
            stack += [(n, depth + 1) for n in item.value]


_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse(text: str, filename: str) -> tuple[Any, Problem | None]:
    """A YAML text's data (within the limits), or its syntax problem."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        _node_budget(node)
        return (loader.construct_document(node) if node is not None else None), None
    except yaml.YAMLError as e:
        return None, yaml_problem(e, filename)
    except RecursionError:
        raise BadInput(TOO_DEEP.format(n=MAX_DEPTH)) from None
    finally:
        loader.dispose()


# -- the work (on the editor's own thread: a large file is parsed and checked off the loop,
# and never holds up the rooms' worker, offload.py) ------------------------------------------

T = TypeVar("T")
_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="komasync-editor")


async def offload(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on the editor's thread (one at a time: one editor's work waits its turn)."""
    return await asyncio.get_running_loop().run_in_executor(_POOL, fn, *args)


@dataclass
class Checked:
    """What the editor's data would save as, and what the check says of that text."""

    text: str
    problems: list[Problem]


def _open(text: str, filename: str) -> dict[str, Any]:
    data, problem = _parse(text, filename)
    if problem is not None:
        return {"scenario": None, "problems": [problem_json(problem)]}
    scenario = as_json(data) if data is not None else {}
    if not isinstance(scenario, dict):
        return {"scenario": None, "problems": [problem_json(_not_a_mapping(filename))]}
    return {"scenario": scenario, "problems": [problem_json(p) for p in _problems(text, filename)]}


def _not_a_mapping(filename: str) -> Problem:
    return Problem(filename, 1, "(top)", "「キー: 値」の組を書いてください / write key: value pairs")


def _problems(text: str, filename: str) -> list[Problem]:
    """`komasync scenario check`'s verdict on a text: nothing, or its problems."""
    try:
        check_scenario_text(text, filename)
    except ScenarioError as e:
        return e.problems
    return []


def _checked(data: dict[str, Any], original: str | None, filename: str) -> Checked:
    if original is not None:
        _parse(original, filename)  # within the limits (a bomb is refused, not expanded)
    text = scenario_text(data, original)
    return Checked(text, _problems(text, filename))


def _preview(data: dict[str, Any], original: str | None, player: str | None) -> dict[str, Any]:
    checked = _checked(data, original, DEFAULT_FILE)
    if checked.problems:
        return {"problems": [problem_json(p) for p in checked.problems]}
    state = build_room(load_scenario(checked.text), seed=secrets.token_hex(8))
    audience = Audience("player", player) if player else Audience("table")
    return {"gm": View(GM, state).tree, "players": View(audience, state).tree}


# -- requests ---------------------------------------------------------------------------------

async def _body(request: web.Request) -> dict[str, Any]:
    try:
        raw = await request.read()
        body = orjson.loads(raw)
    except web.HTTPRequestEntityTooLarge:
        raise BadInput(TOO_BIG.format(n=f"> {request.app._client_max_size} bytes")) from None
    except (orjson.JSONDecodeError, ValueError):
        raise BadInput(NOT_JSON) from None
    if not isinstance(body, dict):
        raise BadInput(NOT_OBJECT.format(field="body"))
    return body


def _text(body: dict[str, Any], field: str, required: bool = False) -> str | None:
    value = body.get(field)
    if value is None:
        if required:
            raise BadInput(NEED.format(fields=field))
        return None
    if not isinstance(value, str):
        raise BadInput(NOT_TEXT.format(field=field))
    if len(value) > MAX_TEXT:
        raise BadInput(TOO_BIG.format(n=f"{field} > {MAX_TEXT}"))
    return value


def _scenario(body: dict[str, Any]) -> dict[str, Any]:
    value = body.get("scenario")
    if value is None:
        raise BadInput(NEED.format(fields="scenario"))
    if not isinstance(value, dict):
        raise BadInput(NOT_OBJECT.format(field="scenario"))
    _budget(value)
    return value


def _filename(body: dict[str, Any]) -> str:
    """The file's name as `room create` records it (no folders), or scenario.yaml."""
    name = _text(body, "filename") or DEFAULT_FILE
    return PurePath(name.replace("\\", "/")).name[:255] or DEFAULT_FILE


async def _gm(request: web.Request) -> web.Response | None:
    """None if `Authorization: Bearer` is the server's GM key or a room's GM secret; else
    403 (429 past the address's limit), failures counted as on /api/doctor."""
    server = request.app[SERVER_KEY]
    address = server.client_address(request)
    if (throttled := _throttled(server, address)) is not None:
        return throttled
    secret = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if secret and await _opens(server, secret):
        return None
    server.throttle.failed(address, WHERE)
    return _json(error_frame(AUTH_FAILED), 403)


async def _opens(server: Komasync, secret: str) -> bool:
    store = server.storage.storage
    if await server._lookup(gm_key_ok, store, secret):
        return True  # the GM key opens the editor on a server with no room yet, too
    return bool(await server._lookup(store.rooms_for_secret, secret))


def _route(work: Any) -> Any:
    """A POST route: the GM's secret, the body read within limits, bad input as 400."""

    async def handler(request: web.Request) -> web.Response:
        refused = await _gm(request)
        if refused is not None:
            return refused
        try:
            return await work(request, await _body(request))  # type: ignore[no-any-return]
        except BadInput as e:
            return _bad(e.text)

    return handler


async def _open_route(request: web.Request, body: dict[str, Any]) -> web.Response:
    text = _text(body, "yaml", required=True)
    assert text is not None
    return _json(await offload(_open, text, _filename(body)))


async def _check_route(request: web.Request, body: dict[str, Any]) -> web.Response:
    checked = await offload(_checked, _scenario(body), _text(body, "original"), _filename(body))
    return _json({"ok": not checked.problems, "yaml": checked.text,
                  "problems": [problem_json(p) for p in checked.problems]})


async def _save_route(request: web.Request, body: dict[str, Any]) -> web.Response:
    checked = await offload(_checked, _scenario(body), _text(body, "original"), _filename(body))
    return _json({"yaml": checked.text, "problems": [problem_json(p) for p in checked.problems]})


async def _room_route(request: web.Request, body: dict[str, Any]) -> web.Response:
    filename = _filename(body)
    checked = await offload(_checked, _scenario(body), _text(body, "original"), filename)
    if checked.problems:
        return _json({"problems": [problem_json(p) for p in checked.problems]}, 422)
    scenario = await offload(load_scenario, checked.text, filename)
    server = request.app[SERVER_KEY]
    room_id, secret = await server.create_room(scenario, scenario_name=filename)
    return _json({"room": room_id, "name": scenario.room.name, "secret": secret})


async def _preview_route(request: web.Request, body: dict[str, Any]) -> web.Response:
    player = _text(body, "player")
    answer = await offload(_preview, _scenario(body), _text(body, "original"), player)
    return _json(answer, 422 if "problems" in answer else 200)


# -- templates ------------------------------------------------------------------------------

def templates() -> list[dict[str, str]]:
    """Each template file (server/scenario_templates): id, ja/en title (its first line,
    `# ja / en`), text; "empty" first, then the subsystems in the demos' order."""
    folder = resources.files("komasync.server") / "scenario_templates"
    found = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".yaml"):
            text = entry.read_text(encoding="utf-8")
            ja, en = _split(text.splitlines()[0].removeprefix("#").strip())
            found[entry.name.removesuffix(".yaml")] = {"ja": ja, "en": en, "yaml": text}
    order = ["empty", *(d.subsystem for d in DEMOS)]
    ids = sorted(found, key=lambda t: (order.index(t) if t in order else len(order), t))
    return [{"id": t, **found[t]} for t in ids]


async def _templates_route(request: web.Request) -> web.Response:
    return _json({"templates": templates()})


def add_routes(app: web.Application) -> None:
    """The editor's routes (GET /api/scenario/schema is the schema's own, elsewhere)."""
    app.router.add_get("/api/scenario/templates", _templates_route)
    for name, work in (("open", _open_route), ("check", _check_route), ("save", _save_route),
                       ("room", _room_route), ("preview", _preview_route)):
        app.router.add_post(f"/api/scenario/{name}", _route(work))
