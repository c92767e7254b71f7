"""The client's typed documents (``tabletop_client.types``) against ``openapi.yaml``:
every field of a TypedDict exists in its schema and every schema field exists in the
TypedDict, required exactly where the schema requires it. So a change of the contract
that the client does not follow (or the reverse) fails here."""

from __future__ import annotations

import os
from typing import Any

import pytest
import yaml

from tabletop_client import types as t

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with open(os.path.join(ROOT, "openapi.yaml")) as source:
    SPEC: dict[str, Any] = yaml.safe_load(source)

S = "#/components/schemas/"

# TypedDict -> where its schema is: a schema name, then keys into it (``*`` = items,
# an int = that branch of a oneOf/anyOf).
MODELS: list[tuple[type, list[str | int]]] = [
    (t.Problem, ["Problem"]),
    (t.Catalogue, ["Catalogue"]),
    (t.CatalogueGame, ["CatalogueGame"]),
    (t.OptionSpec, ["OptionSpec"]),
    (t.CommandSpec, ["CommandSpec"]),
    (t.SeatInfo, ["Seat"]),
    (t.Result, ["Result"]),
    (t.View, ["View"]),
    (t.Clock, ["Clock"]),
    (t.ClockSettings, ["ClockSettings"]),
    (t.Deadline, ["Deadlines", "additionalProperties"]),
    (t.SchlitzohrState, ["SchlitzohrState"]),
    (t.SchlitzohrBoard, ["SchlitzohrState", "board"]),
    (t.BoardEar, ["SchlitzohrState", "board", "ears", "*"]),
    (t.LastRoll, ["SchlitzohrState", "last_roll", 0]),
    (t.CardSet, ["CardSet"]),
    (t.AbluxxenState, ["AbluxxenState"]),
    (t.AbluxxenToAct, ["AbluxxenState", "to_act", 0]),
    (t.Joined, ["Joined"]),
    (t.Invite, ["Invite"]),
    (t.Rematched, ["Rematched"]),
    (t.RematchLink, ["RematchLink"]),
    (t.Legal, ["Legal"]),
    (t.LegalCompact, ["LegalCompact"]),
    (t.CommandChoice, ["CommandChoice"]),
    (t.Choice, ["CommandChoice", "choose"]),
    (t.StreamTicket, ["StreamTicket"]),
    (t.Registered, ["Registered"]),
    (t.MyAccount, ["MyAccount"]),
    (t.MyGames, ["MyGames"]),
    (t.MyGame, ["MyGames", "games", "*"]),
    (t.OutcomeEvent, ["OutcomeEvent"]),
    (t.Outcome, ["Outcome"]),
    (t.Actor, ["Actor"]),
    (t.Envelope, ["Envelope"]),
    (t.EventPage, ["EventPage"]),
    (t.GameSummary, ["GameSummary"]),
    (t.GameSummarySeat, ["GameSummary", "seats", "*", 0]),
    (t.GameList, ["GameList"]),
    (t.PlayerTotals, ["PlayerTotals"]),
    (t.GameRatings, ["GameRatings"]),
    (t.Rating, ["Rating"]),
    (t.LeaderboardEntry, ["Leaderboard", "ratings", "*"]),
    (t.Leaderboard, ["Leaderboard"]),
    (t.RatingPoint, ["RatingPoint"]),
    (t.RatedGame, ["RatedGame"]),
    (t.RatingHistory, ["RatingHistory"]),
    (t.Verification, ["Verification"]),
    (t.Discrepancy, ["Verification", "discrepancy", 0]),
]


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].removeprefix(S)
        node = SPEC["components"]["schemas"][name]
    return node


def branches(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The object branches of a oneOf/anyOf (null branches left out), else the node."""
    node = resolve(node)
    for key in ("oneOf", "anyOf"):
        if key in node:
            return [resolve(b) for b in node[key] if resolve(b).get("type") != "null"]
    return [node]


def shape(node: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(every property, the required ones) of an object schema: its own properties
    plus those of its ``allOf`` parts; for a union (oneOf/anyOf) of objects every
    property of any branch, required where every branch requires it."""
    node = resolve(node)
    props: set[str] = set(node.get("properties", {}))
    required: set[str] = set(node.get("required", []))
    closed = node.get("additionalProperties") is False  # then its own properties are all
    for part in node.get("allOf", []):
        p, r = shape(part)
        props |= set() if closed else p
        required |= r
    parts = branches(node)
    if parts != [node]:
        shapes = [shape(part) for part in parts]
        props |= set().union(*(p for p, _ in shapes))
        required |= set.intersection(*(r for _, r in shapes))
    return props, required


def locate(path: list[str | int]) -> dict[str, Any]:
    node = resolve({"$ref": S + str(path[0])})
    for step in path[1:]:
        if step == "*":
            node = resolve(node["items"])
        elif step == "additionalProperties":  # a map's values
            node = resolve(resolve(node)["additionalProperties"])
        elif isinstance(step, int):
            node = branches(node)[step]
        else:
            node = resolve(resolve(node)["properties"][step])
    return node


@pytest.mark.parametrize("model,path", MODELS, ids=[m.__name__ for m, _ in MODELS])
def test_every_typed_field_is_in_the_contract_and_back(model: type, path: list[str | int]) -> None:
    props, required = shape(locate(path))
    fields = set(model.__annotations__)
    assert fields - props == set(), f"{model.__name__}: not in openapi.yaml"
    assert props - fields == set(), f"{model.__name__}: in openapi.yaml, not typed"
    assert set(model.__required_keys__) == required, model.__name__  # type: ignore[attr-defined]


def response_documents() -> set[str]:
    """The schemas the API answers with: each JSON body of an operation's answer."""
    names = set()
    for path in SPEC["paths"].values():
        for operation in path.values():
            for response in operation.get("responses", {}).values():
                if "$ref" in response:
                    ref = response["$ref"].removeprefix("#/components/responses/")
                    response = SPEC["components"]["responses"][ref]
                for media_type, media in response.get("content", {}).items():
                    if "json" not in media_type or "jsonl" in media_type:
                        continue  # the stream's events and the export are Envelopes
                    schema = media.get("schema", {})
                    for branch in [schema, *schema.get("anyOf", []), *schema.get("oneOf", [])]:
                        ref = branch.get("$ref", "")
                        if ref.startswith(S):
                            names.add(ref.removeprefix(S))
    return names


def test_every_document_the_api_answers_with_has_a_typed_model() -> None:
    typed = {path[0] for _, path in MODELS if len(path) == 1}
    assert {"View", "Legal", "LegalCompact", "Outcome", "EventPage"} <= response_documents()
    assert response_documents() - typed - {"Health"} == set()  # Health: operations only
