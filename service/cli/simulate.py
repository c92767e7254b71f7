"""``tabletop simulate``: full games with random legal commands, engine only.

Deterministic: the same arguments print byte-identical output (no timings here;
``bench/engine_bench.py`` measures speed). Game ``k`` uses the seed ``f"{seed}:{k}"``.
``--bots strong,greedy`` seats a bot of the given level on each seat instead
(``engine.ai``; the strong bot with an iteration budget, so runs stay deterministic).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from engine.ai import LEVELS, bot_policy
from engine.errors import RuleViolation
from engine.playout import Playout, Policy, play
from engine.registry import game_names, get_game


def add_parser(sub: Any) -> None:
    p = sub.add_parser("simulate", help="play full games with random legal commands (no server needed)")
    p.add_argument("--game", required=True, choices=game_names())
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--games", type=int, default=1, help="number of games (default 1)")
    p.add_argument("--seed", default="0", help="any string; game k uses '<seed>:<k>'")
    p.add_argument(
        "--option", action="append", default=[], metavar="NAME=JSON",
        help="a game option, value as JSON (e.g. --option rounds=2 --option edition='\"classic\"')",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object per game")
    p.add_argument(
        "--bots", metavar="LEVELS",
        help=f"one bot level per seat, comma-separated ({', '.join(LEVELS)}); default: all random",
    )
    p.add_argument(
        "--budget", type=int, metavar="N",
        help="simulations per decision of the strong bot (default: the game's, see docs/bots.md)",
    )
    p.set_defaults(run=run)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``["rounds=2", "edition=classic"]`` → options; bare words are taken as strings."""
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise SystemExit(f"--option needs NAME=VALUE, got {pair!r}")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


def parse_bots(raw: str | None, players: int) -> list[str] | None:
    """``"strong,greedy"`` → ``["strong", "greedy"]``, one level per seat (None: no bots)."""
    if raw is None:
        return None
    levels = [level.strip() for level in raw.split(",")]
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        raise SystemExit(f"--bots: unknown level {unknown[0]!r}; levels: {', '.join(LEVELS)}")
    if len(levels) != players:
        raise SystemExit(f"--bots needs one level per seat: {players} levels, got {len(levels)}")
    return levels


def game_record(seed: str, players: int, playout: Playout) -> dict[str, Any]:
    """The JSON line printed for one game."""
    return {
        "seed": seed,
        "players": players,
        "scores": list(playout.result.scores),
        "winners": list(playout.result.winners),
        "reason": playout.result.reason,
        "turns": playout.result.turns,
        "commands": len(playout.commands),
        "events": len(playout.events),
    }


def run(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    if args.games < 1:
        raise SystemExit("--games must be at least 1")
    if args.budget is not None and args.budget < 1:
        raise SystemExit("--budget must be at least 1")
    bots = parse_bots(args.bots, args.players)
    policies: dict[int, Policy] | None = None
    if bots is not None:
        policies = {
            seat: bot_policy(args.game, level, args.budget) for seat, level in enumerate(bots)
        }
    try:
        options = game.validate_options(parse_options(args.option))
        records = []
        for k in range(args.games):
            seed = f"{args.seed}:{k}"
            playout = play(game, args.players, seed.encode(), options, policies)
            record = game_record(seed, args.players, playout)
            if bots is not None:
                record["bots"] = bots
            records.append(record)
            if args.json:
                print(json.dumps(record, sort_keys=True), flush=True)
            else:
                print(
                    f"game {k + 1:>4}  seed {seed:<12} turns {record['turns']:>4}  events {record['events']:>5}  "
                    f"scores {record['scores']}  winners {record['winners']}"
                )
    except RuleViolation as err:
        raise SystemExit(f"{err.code}: {err.message}") from None
    if not args.json:
        print_summary(records, args.players)
        if bots is not None:
            seats = ", ".join(f"{seat}: {level}" for seat, level in enumerate(bots))
            print(f"bots per seat: {seats}")
    return 0


def print_summary(records: list[dict[str, Any]], players: int) -> None:
    wins: Counter[int] = Counter(seat for r in records for seat in r["winners"])
    n = len(records)
    print(f"\n{n} games, {players} players")
    print("wins per seat (shared wins count for each): " + ", ".join(f"{s}: {wins[s]}" for s in range(players)))
    print(f"mean turns {sum(r['turns'] for r in records) / n:.1f}, mean events {sum(r['events'] for r in records) / n:.1f}")
