"""The OpenAPI contract (``openapi.yaml`` at the project root), read once per process."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import yaml

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
"""Where the contract lives: the project root (``service/http/../../openapi.yaml``)."""

METHODS = ("get", "post", "put", "patch", "delete")


@functools.cache
def text() -> str:
    """The contract's YAML text."""
    return SPEC_PATH.read_text(encoding="utf-8")


@functools.cache
def document() -> dict[str, Any]:
    """The contract, parsed."""
    return yaml.safe_load(text())  # type: ignore[no-any-return]


def operations() -> list[dict[str, Any]]:
    """Every operation, in the file's order, with examples rendered as JSON text."""
    out = []
    for path, item in document()["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is not None:
                out.append(_operation(path, method, operation))
    return out


def _operation(path: str, method: str, operation: dict[str, Any]) -> dict[str, Any]:
    request = operation.get("requestBody", {}).get("content", {})
    responses = []
    for status, response in operation.get("responses", {}).items():
        response = _resolve(response)
        examples = [
            (media, _pretty(example.get("value")))
            for media, content in response.get("content", {}).items()
            for example in _examples(content)
        ]
        responses.append(
            {"status": status, "description": response.get("description", ""), "examples": examples}
        )
    return {
        "method": method.upper(),
        "path": path,
        "summary": operation.get("summary", ""),
        "description": operation.get("description", ""),
        "parameters": [_resolve(p) for p in operation.get("parameters", [])],
        "request_examples": [
            _pretty(_resolve(e).get("value")) for c in request.values() for e in _examples(c)
        ],
        "responses": responses,
    }


def _examples(content: dict[str, Any]) -> list[dict[str, Any]]:
    examples = [_resolve(e) for e in content.get("examples", {}).values()]
    if "example" in content:
        examples.append({"value": content["example"]})
    return examples


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with a local ``$ref`` followed (``#/components/...``)."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _pretty(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
