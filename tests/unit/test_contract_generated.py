"""The generated part of ``openapi.yaml`` is current, and complete where it is listed."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from engine.registry import game_names
from service.cli import main
from service.contract import document
from service.contract.problem_codes import all_codes
from service.http.spec import SPEC_PATH

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_contract_is_a_fresh_generation(tmp_path: Path) -> None:
    assert document.is_current(SPEC_PATH), "openapi.yaml is stale: run `tabletop contract`"
    assert main(["contract", "--check"]) == 0
    # ... and the check can fail: a stale copy is refused, then regenerated.
    stale = tmp_path / "openapi.yaml"
    text = SPEC_PATH.read_text()
    assert "const: DieRolled\n" in text
    stale.write_text(text.replace("const: DieRolled\n", "const: DieRolledX\n", 1))
    assert main(["contract", "--check", "--path", str(stale)]) == 1
    assert main(["contract", "--path", str(stale)]) == 0
    assert stale.read_text() == SPEC_PATH.read_text()


def test_every_problem_code_raised_in_the_service_is_listed() -> None:
    literal = re.compile(r'(?:Problem|problem_response|BadBody)\(\s*(?:\d{3},\s*)?"([a-z_]+)"')
    limits = re.compile(r'"([a-z_]+_rate_limited)"')  # the rate limiter's own table
    classes = re.compile(r'^    code = "([a-z_]+)"$', re.M)  # service.app.errors' classes
    found = {
        code
        for path in (ROOT / "service").rglob("*.py")
        for pattern in (literal, limits, classes)
        for code in pattern.findall(path.read_text())
    } - {"app_error"}  # the base class's, never answered
    assert found and found <= set(all_codes()), found - set(all_codes())
    schemas = yaml.safe_load(SPEC_PATH.read_text())["components"]["schemas"]
    listed = {branch["const"] for branch in schemas["ProblemCode"]["oneOf"]}
    assert listed == set(all_codes())


def test_game_name_enums_in_the_contract_are_the_registered_games() -> None:
    spec = yaml.safe_load(SPEC_PATH.read_text())
    catalogue = spec["paths"]["/v1/catalogue/{name}"]["get"]["parameters"][0]["schema"]["enum"]
    listing = spec["paths"]["/v1/games"]["get"]["parameters"][0]["schema"]["enum"]
    assert sorted(catalogue) == sorted(listing) == game_names()
