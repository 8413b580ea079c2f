"""The wire contract: every message a client and the server exchange, as pydantic models.

One `TypeAdapter` per direction; `komasync schema` exports both as JSON Schema and the
tests validate every frame they see against it. See docs/protocol.md for the flow.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from ..engine.bounds import Exact, Finite, Json, Serial
from ..engine.outcomes import Created
from ..engine.phases import PhaseTable
from ..engine.prompts import Choice
from ..engine.registry import PHASE_TABLES, ActionUnion, AnswerUnion, QueryUnion, ResultUnion

__all__ = [
    "PROTOCOL_VERSION",
    "WELCOME_TABLES",
    "ClientMessage",
    "ServerMessage",
    "client_adapter",
    "json_schema",
    "server_adapter",
    "state_schema",
]

PROTOCOL_VERSION = 2

Id = Annotated[str, Field(min_length=1, max_length=64)]
ClientRole = Literal["gm", "player", "bridge", "observer"]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- client → server -----------------------------------------------------------------
class Auth(_Msg):
    """First message: the room and a GM secret or an invite token; `since` to resume."""

    type: Literal["auth"]
    room: Id
    secret: str | None = Field(default=None, max_length=200)
    token: str | None = Field(default=None, max_length=200)
    since: Serial | None = None
    client: str | None = Field(default=None, max_length=100)
    platform: Literal["ccfolia", "foundry"] | None = None


class ActionMsg(_Msg):
    """An action with the client's id (retries with the same id apply once)."""

    type: Literal["action"]
    id: Id
    base_version: Serial | None = None
    action: ActionUnion


class AnswerMsg(_Msg):
    """Answer a prompt (same as the action `answer`)."""

    type: Literal["answer"]
    id: Id
    prompt: Id
    choice: str = Field(max_length=200)


class Ping(_Msg):
    type: Literal["ping"]
    t: Finite | Exact | Annotated[str, Field(max_length=200)] | None = None


class InviteCreate(_Msg):
    """GM: mint an invite for a player, a bridge or an observer."""

    type: Literal["invite.create"]
    id: Id
    role: Literal["player", "bridge", "observer"]
    player: str | None = Field(default=None, max_length=64, pattern=r"^[\w\-.]+$")
    label: str = Field(default="", max_length=100)


class InviteRevoke(_Msg):
    type: Literal["invite.revoke"]
    id: Id
    invite: Id


class InviteList(_Msg):
    type: Literal["invite.list"]
    id: Id


class History(_Msg):
    """GM: the timeline of actions (who, what, why, rolls) from `after` on."""

    type: Literal["history"]
    id: Id
    after: Serial = 0
    limit: StrictInt = Field(default=200, ge=1, le=1000)


class QueryMsg(_Msg):
    """Ask a subsystem a question (ranges, legal moves…): answered in the room's order
    from what the sender may see; nothing changes and the version stays."""

    type: Literal["query"]
    id: Id
    query: QueryUnion


Label = Annotated[str, Field(max_length=100)]


class BridgeToken(_Msg):
    """A piece on the VTT as the bridge sees it: its name and top-left corner (`left`,
    `top`) in the platform's units; `id` is its komasync id when komasync drew it."""

    name: Label
    left: Finite
    top: Finite
    id: Label | None = None


class BridgeUser(_Msg):
    """A VTT user the bridge knows of (Foundry's users; Ccfolia's uids seen in the room)."""

    id: Label
    name: Label = ""
    gm: StrictBool = False


class BridgeGrid(_Msg):
    """The VTT's own grid, when the platform says it (Foundry's scene: square size and
    where the scene's squares start), named as the calibration is."""

    size: Annotated[float, Field(ge=1, le=10_000, allow_inf_nan=False, strict=True)]
    origin_x: Finite = 0.0
    origin_y: Finite = 0.0


class BridgePage(_Msg):
    """Ccfolia's page check: which ways of working the page allows (`can`), the hooks not
    found (`missing`, by their ids), and whether the data layer is on, off or wanted but
    missing (`fallback`)."""

    version: Label = ""
    can: dict[Annotated[str, Field(max_length=32)], StrictBool] = Field(default_factory=dict,
                                                                         max_length=16)
    missing: list[Annotated[str, Field(max_length=32)]] = Field(default_factory=list,
                                                                max_length=32)
    data_layer: Literal["on", "off", "fallback"] = "off"


class DryRun(_Msg):
    """GM: what these actions would do, applied in order on a copy of the room (each with
    what settles after it); the room, its version and its dice stay as they are."""

    type: Literal["dry_run"]
    id: Id
    actions: list[ActionUnion] = Field(min_length=1, max_length=4)


class BridgeStatus(_Msg):
    """Bridge: which platform it drives and how far behind it is (shown to the GM), plus
    what the GM's set-up needs (issue 30): the VTT's pieces and users, its grid, the
    Ccfolia page check."""

    type: Literal["bridge.status"]
    platform: Literal["ccfolia", "foundry", "other"]
    version: Serial | None = None
    detail: str = Field(default="", max_length=300)
    tokens: list[BridgeToken] | None = Field(default=None, max_length=100)
    users: list[BridgeUser] | None = Field(default=None, max_length=100)
    grid: BridgeGrid | None = None
    page: BridgePage | None = None


class TableEvent(_Msg):
    """Bridge: something happened on the VTT (a piece dropped, a chat line); the server's
    platform adapter turns it into an action, or answers with a reject and snap-back ops."""

    type: Literal["table.event"]
    id: Id
    event: dict[Annotated[str, Field(max_length=100)], Json] = Field(max_length=100)


ClientMessage = Annotated[
    Union[Auth, ActionMsg, AnswerMsg, Ping, InviteCreate, InviteRevoke, InviteList,  # noqa: UP007
          History, QueryMsg, DryRun, BridgeStatus, TableEvent],
    Field(discriminator="type"),
]
client_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)


# -- server → client -----------------------------------------------------------------
class Reason(_Msg):
    ja: str
    en: str


class Welcome(_Msg):
    """The room as this connection sees it: role, audience, version, and every subsystem's
    phase/step table (public rules, the same for every audience) for the panels."""

    type: Literal["welcome"]
    protocol: StrictInt
    room: str
    role: ClientRole
    player: str | None = None
    audience: str
    version: StrictInt
    tables: dict[str, PhaseTable] = Field(default_factory=dict)


#: `Welcome.tables` as sent: every registered table, by subsystem name (built once).
WELCOME_TABLES: dict[str, Any] = {name: table.model_dump(mode="json")
                                  for name, table in PHASE_TABLES.items()}


class Snapshot(_Msg):
    type: Literal["snapshot"]
    version: StrictInt
    state: dict[str, Any]


class Op(_Msg):
    op: Literal["set", "del"]
    path: list[str | StrictInt]
    value: Any = None


class LogEntry(_Msg):
    ja: str
    en: str


class ActionInfo(_Msg):
    """GM only: what produced a change (for the timeline)."""

    actor: dict[str, Any]
    action: dict[str, Any]
    rolls: list[dict[str, Any]] = Field(default_factory=list)
    warnings: list[dict[str, Any]] = Field(default_factory=list)
    happenings: list[dict[str, Any]] = Field(default_factory=list)


class Change(_Msg):
    type: Literal["change"]
    from_version: StrictInt
    to_version: StrictInt
    ops: list[Op]
    log: list[LogEntry] = Field(default_factory=list)
    info: ActionInfo | None = None
    undo_to: StrictInt | None = None  # an undo: the version it went back to (every audience)
    by_gm: StrictBool = False  # every audience: the GM made this change (a player's log says so)


class Ack(_Msg):
    """An action was applied and is durable: its version, the ids it created and its
    results as the sender may see them. A `duplicate` (a retry) carries only the version."""

    type: Literal["ack"]
    id: str
    version: StrictInt
    duplicate: StrictBool = False
    created: list[Created] = Field(default_factory=list)
    results: list[ResultUnion] = Field(default_factory=list)


class Reject(_Msg):
    """An action was refused: stable code, rule ID where a rule forbids it, both reasons."""

    type: Literal["reject"]
    id: str | None
    code: str
    rule: str | None = None
    reason: Reason
    version: StrictInt
    details: dict[str, Any] = Field(default_factory=dict)


class Error(_Msg):
    """A message was not understood or not allowed (not an action refusal)."""

    type: Literal["error"]
    id: str | None = None
    code: str
    reason: Reason
    details: dict[str, Any] = Field(default_factory=dict)


class PromptView(_Msg):
    """A prompt as its addressee sees it: what it asks (`kind`), whom and what it is about
    (`about`: ids by role), the question and its choices; `resume`/`context` the GM's only."""

    id: str
    to: str
    kind: str
    about: dict[str, str] = Field(default_factory=dict)
    ja: str
    en: str
    choices: list[Choice] = Field(default_factory=list)
    free: StrictBool = False
    resume: str | None = Field(default=None, description="sent to the GM only")
    context: dict[str, Any] | None = Field(default=None, description="sent to the GM only")


class PromptMsg(_Msg):
    type: Literal["prompt"]
    prompt: PromptView
    version: StrictInt


class Pong(_Msg):
    type: Literal["pong"]
    t: StrictFloat | StrictInt | str | None = None
    version: StrictInt


class Invite(_Msg):
    type: Literal["invite"]
    id: str
    invite: str
    token: str
    role: str
    player: str | None = None


class Invites(_Msg):
    type: Literal["invites"]
    id: str
    invites: list[dict[str, Any]]


class HistoryReply(_Msg):
    type: Literal["history"]
    id: str
    entries: list[dict[str, Any]]


class QueryResult(_Msg):
    """The answer to a `query`, computed at `version`: the query's typed answer (its
    `kind` the query's)."""

    type: Literal["query.result"]
    id: str
    version: StrictInt
    result: AnswerUnion


class Changed(_Msg):
    """One value a dry run would change: where, before and after (absent: not there)."""

    path: list[str | StrictInt]
    old: Any = None
    new: Any = None
    had: StrictBool = True
    has: StrictBool = True


class DryStep(_Msg):
    """One action of a dry run: what it would change, say and set off (as the GM sees it)."""

    kind: str
    changes: list[Changed] = Field(default_factory=list)
    log: list[LogEntry] = Field(default_factory=list)
    happenings: list[dict[str, Any]] = Field(default_factory=list)
    warnings: list[dict[str, Any]] = Field(default_factory=list)


class DryRefusal(_Msg):
    """The action of a dry run the engine would refuse (`step`: its index), and why."""

    step: StrictInt
    code: str
    rule: str | None = None
    reason: Reason


class DryRunResult(_Msg):
    """The answer to a `dry_run`, computed at `version` (still the room's): each action's
    consequences in order, up to the first one refused (`refused`; none after it is tried)."""

    type: Literal["dry_run.result"]
    id: str
    version: StrictInt
    steps: list[DryStep]
    refused: DryRefusal | None = None


class Notice(_Msg):
    """GM only: refusals and warnings as they happen, connection presence, a bridge's
    status, and each roll a bridge delivered with what became of it (`roll`,
    server/roll_ledger.py; a joining GM is sent the kept ones)."""

    type: Literal["notice"]
    kind: Literal["refusal", "warning", "presence", "bridge", "roll"]
    data: dict[str, Any]


class TableOps(_Msg):
    """Bridge of a platform: operations to apply on the VTT (`reset` = rebuild from these)."""

    type: Literal["table.ops"]
    platform: str
    version: StrictInt
    reset: StrictBool = False
    ops: list[dict[str, Any]]
    event: str | None = None


class Bye(_Msg):
    """Sent before the server closes a connection, with why."""

    type: Literal["bye"]
    code: str
    reason: Reason


ServerMessage = Annotated[
    Union[Welcome, Snapshot, Change, Ack, Reject, Error, PromptMsg, Pong, Invite,  # noqa: UP007
          Invites, HistoryReply, QueryResult, DryRunResult, Notice, TableOps, Bye],
    Field(discriminator="type"),
]
server_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def json_schema() -> dict[str, Any]:
    """Both directions and the state tree (`RoomState`, what a snapshot holds) as one JSON
    Schema document, definitions sorted by name so a generated file can be checked for staleness."""
    from ..engine.state import RoomState

    named = (("ClientMessage", client_adapter), ("ServerMessage", server_adapter),
             ("RoomState", TypeAdapter(RoomState)))
    each, top = TypeAdapter.json_schemas([(name, "validation", adapter) for name, adapter in named],
                                         ref_template="#/$defs/{model}", schema_generator=_Schema)
    for (name, _), schema in each.items():
        if "$ref" not in schema:  # the two unions; RoomState is a model, already defined
            top["$defs"][name] = schema
    defs = _short_names(top["$defs"])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"komasync protocol v{PROTOCOL_VERSION}",
        "description": "komasync の通信（両方向）と状態ツリー / komasync's messages (both "
                       "directions) and its state tree (RoomState: a snapshot's `state`).",
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": {name: defs[name] for name in sorted(defs)},
    }


@cache
def state_schema() -> dict[str, Any]:
    """The state tree's part of `json_schema()`: `RoomState` and every definition it reaches
    (the console's typed override editor is built from it; `GET /api/schema`)."""
    defs = json_schema()["$defs"]
    reached: set[str] = set()
    todo = ["RoomState"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo.extend(_refs(defs[name]))
    return {"$ref": "#/$defs/RoomState", "$defs": {name: defs[name] for name in sorted(reached)}}


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"].rsplit("/", 1)[-1]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


class _Schema(GenerateJsonSchema):
    """Marks a state model's secret fields as optional (only the GM's projection has them);
    no per-field titles (they repeat the name, and type generators make aliases of them)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        out = super().model_schema(schema)
        secret: frozenset[str] = getattr(schema["cls"], "__secret__", frozenset())
        if secret and "required" in out:
            out["required"] = [name for name in out["required"] if name not in secret]
            if not out["required"]:
                del out["required"]
        for name in sorted(secret & set(out.get("properties", {}))):
            out["properties"][name]["description"] = "GMだけに送られる / sent to the GM only"
        return out


def _short_names(defs: dict[str, Any]) -> dict[str, Any]:
    """Definitions whose class name two modules share are named by pydantic after their whole
    module path (`komasync__engine__grid__actions__Move`); name them after their subsystem
    (`GridMove`) instead, the title too, so generated types read well."""
    renamed: dict[str, str] = {}
    for name in defs:
        if "__" not in name:
            continue
        parts = name.split("__")
        sub = parts[2] if len(parts) > 3 and parts[:2] == ["komasync", "engine"] else parts[0]
        short = "".join(w.capitalize() for w in sub.split("_")) + parts[-1]
        if short in defs or short in renamed.values():
            short = "".join(w.capitalize() for p in parts for w in p.split("_"))
        renamed[name] = short
    if not renamed:
        return defs
    text = json.dumps(defs)
    for old, new in renamed.items():
        text = text.replace(f'"#/$defs/{old}"', f'"#/$defs/{new}"')
    out: dict[str, Any] = json.loads(text)
    for old, new in renamed.items():
        out[new] = out.pop(old)
        out[new]["title"] = new
    return out
