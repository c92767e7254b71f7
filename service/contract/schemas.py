"""The generated component schemas of ``openapi.yaml``, built from the server's own
definitions (see the package docstring). Names are stable and public -- clients
generate types from them:

- ``<Game>Command`` (``oneOf``, discriminator ``kind``) and ``<Game>Command<Kind>``
  per command kind (``SchlitzohrCommandMove``, ``AbluxxenCommandTakeBack``);
  ``Command`` = any game's command, or ``CommandResign`` (every game's).
- ``<Game>Event`` (``oneOf``, discriminator ``type``) and ``<Game>Event<Type>`` per
  game event type, ``Event<Type>`` per shared type (``EventGameCreated``);
  ``Event`` = any game's event. Each gives ``type``, ``schema_version``, ``data``,
  ``private`` (its schema, or null: null for every viewer the event hides it from) and
  ``visible_to``.
- ``<Game>Options`` (every option, as a view carries them) and
  ``<Game>OptionsRequest`` (any of them, as a create request names them);
  ``Create<Game>GameRequest`` and ``CreateGameRequest`` (discriminator ``game``).
- ``ProblemCode``: every stable problem code with its statuses.
"""

from __future__ import annotations

from typing import Any

from engine.game import Game
from engine.model import CommandSpec
from engine.registry import game_names, get_game
from engine.resign import RESIGN_SPEC
from events.schemas import EventType, default_registry
from events.schemas.fields import MAX_SEAT
from events.schemas.jsonschema import to_json_schema
from service.contract.problem_codes import all_codes

JSON = dict[str, Any]
REF = "#/components/schemas/"
RESIGN_NAME = "CommandResign"
"""The schema of ``{"kind": "resign"}``, the one command of the table (``engine.resign``)."""


def camel(name: str) -> str:
    """``take_back`` -> ``TakeBack``; ``schlitzohr`` -> ``Schlitzohr``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def command_name(game: str, kind: str) -> str:
    return f"{camel(game)}Command{camel(kind)}"


def event_name(game: str | None, event_type: str) -> str:
    return f"{camel(game)}Event{event_type}" if game else f"Event{event_type}"


def components() -> dict[str, JSON]:
    """Every generated component schema, in a stable order."""
    out: dict[str, JSON] = {}
    registry = default_registry()
    shared = registry.types("")  # only the shared ones: "" is no game
    for name in sorted(shared):
        out[event_name(None, name)] = _event(shared[name])
    for game_name in game_names():
        game = get_game(game_name)
        out.update(_game_components(game, shared))
    games = [camel(g) for g in game_names()]
    out[RESIGN_NAME] = _command_schema(RESIGN_NAME, RESIGN_SPEC)
    out["Command"] = {
        "description": "A command of any game (the kinds of the games are distinct), or"
        " `resign`, which every game has (docs/rules/, \"Resigning\").",
        "oneOf": [*({"$ref": f"{REF}{g}Command"} for g in games), {"$ref": f"{REF}{RESIGN_NAME}"}],
    }
    out["Event"] = {
        "description": "An event of any game (shared types belong to every game).",
        "anyOf": [{"$ref": f"{REF}{g}Event"} for g in games],
    }
    out["CreateGameRequest"] = {
        "description": "Create a game: `game` says which, and so which players, options and bots.",
        "oneOf": [{"$ref": f"{REF}Create{g}GameRequest"} for g in games],
        "discriminator": {
            "propertyName": "game",
            "mapping": {g: f"{REF}Create{camel(g)}GameRequest" for g in game_names()},
        },
    }
    out["ProblemCode"] = _problem_codes()
    return out


def _command_schema(name: str, spec: CommandSpec) -> JSON:
    """The schema of one command kind, titled ``name``, with its example."""
    schema = spec.json_schema()
    schema["title"] = name
    schema["examples"] = [dict(spec.example) or {"kind": spec.kind}]
    return schema


def _game_components(game: Game[Any], shared: dict[str, EventType]) -> dict[str, JSON]:
    """Every component of one game: its commands, its events, its options and its create
    request."""
    return {
        **_command_components(game),
        **_event_components(game, shared),
        **_option_components(game),
        f"Create{camel(game.name)}GameRequest": _create_request(game),
    }


def _command_components(game: Game[Any]) -> dict[str, JSON]:
    """``<Game>Command<Kind>`` per command kind, and ``<Game>Command`` (any of them)."""
    out: dict[str, JSON] = {}
    kinds = {}
    for spec in game.command_specs:
        name = command_name(game.name, spec.kind)
        out[name] = _command_schema(name, spec)
        kinds[spec.kind] = f"{REF}{name}"
    out[f"{camel(game.name)}Command"] = {
        "description": f"A command of {game.title} (docs/rules/{game.name}.md).",
        "oneOf": [{"$ref": ref} for ref in kinds.values()],
        "discriminator": {"propertyName": "kind", "mapping": kinds},
    }
    return out


def _event_components(game: Game[Any], shared: dict[str, EventType]) -> dict[str, JSON]:
    """``<Game>Event<Type>`` per own event type, and ``<Game>Event`` (any event a viewer
    of this game receives, the shared types included)."""
    out: dict[str, JSON] = {}
    own = {n: t for n, t in default_registry().types(game.name).items() if n not in shared}
    types = {n: f"{REF}{event_name(None, n)}" for n in sorted(shared)}
    for event_type in own.values():
        name = event_name(game.name, event_type.name)
        out[name] = _event(event_type)
        types[event_type.name] = f"{REF}{name}"
    out[f"{camel(game.name)}Event"] = {
        "description": f"An event of a {game.title} game, as a viewer receives it.",
        "oneOf": [{"$ref": ref} for ref in types.values()],
        "discriminator": {"propertyName": "type", "mapping": types},
    }
    return out


def _option_components(game: Game[Any]) -> dict[str, JSON]:
    """``<Game>Options`` (every option, as a view has them) and ``<Game>OptionsRequest``."""
    title = camel(game.name)
    properties = {spec.name: spec.json_schema() for spec in game.option_specs}
    return {
        f"{title}Options": {
            "description": f"Every option of {game.title} (defaults filled in).",
            "type": "object",
            "required": list(properties),
            "properties": properties,
            "additionalProperties": False,
        },
        f"{title}OptionsRequest": {
            "description": f"Options of {game.title} to set; missing ones take their defaults.",
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        },
    }


def _create_request(game: Game[Any]) -> JSON:
    """``Create<Game>GameRequest``: the body that creates a game of this type."""
    seats = "|".join(str(s) for s in range(game.max_players))
    return {
        "type": "object",
        "required": ["game", "players"],
        "properties": {
            "game": {"const": game.name},
            "players": {
                "type": "integer",
                "minimum": game.min_players,
                "maximum": game.max_players,
                "description": "Number of seats.",
            },
            "options": {"$ref": f"{REF}{camel(game.name)}OptionsRequest"},
            "bots": {
                "type": "object",
                "description": "Seat number (as a string, below `players`) -> bot level, "
                "for the seats bots take.",
                "propertyNames": {"pattern": f"^(?:{seats})$"},
                "additionalProperties": {"$ref": f"{REF}BotLevel"},
            },
            # The turn clock is the same for every game (engine.turnclock.check_clock validates it).
            "clock": {"oneOf": [{"$ref": f"{REF}ClockSettings"}, {"type": "null"}]},
            "invite_only": {
                "type": "boolean",
                "description": "Seats only for people with the game's invite code, which "
                "the answer shows this once (`invite`).",
            },
        },
        "additionalProperties": False,
    }


def _event(event_type: EventType) -> JSON:
    seat = {"type": "integer", "minimum": 0, "maximum": MAX_SEAT}
    if event_type.private is None:
        private: JSON = {"type": "null", "description": "This event type has no hidden part."}
        visible: JSON = {"type": "array", "maxItems": 0, "items": seat}
    else:
        private = {
            "description": "The hidden part: present for the seats in `visible_to` while the "
            "game runs (and for everyone once it has ended); null for every other viewer.",
            "oneOf": [to_json_schema(event_type.private), {"type": "null"}],
        }
        visible = {"type": "array", "items": seat, "description": "Seats that see `private`."}
    out: JSON = {"type": "object"}
    if event_type.description:
        out["description"] = event_type.description
    out.update(
        required=["type", "data", "private", "visible_to"],
        properties={
            "type": {"const": event_type.name},
            "schema_version": {"const": event_type.version},
            "data": to_json_schema(event_type.data),
            "private": private,
            "visible_to": visible,
        },
    )
    return out


def _problem_codes() -> JSON:
    codes = all_codes()
    return {
        "type": "string",
        "description": "Every stable problem `code` and its HTTP statuses (`x-status`). "
        "Clients should still treat an unknown code as its status's generic meaning.",
        "oneOf": [
            {"const": code, "description": meaning, "x-status": list(statuses)}
            for code, (statuses, meaning) in codes.items()
        ],
    }
