"""The interactive loop of ``tabletop play``: draw, offer the legal commands, send one,
and follow the others' moves live.

One thread follows the event stream (``TabletopClient.stream``: it reconnects by
itself without gaps or repeats) and only queues the events; this thread alone reads
the keyboard, talks to the server for the seat, and prints. While others act it
waits on that queue and redraws when something new arrives; should the stream give
up, it long-polls the view instead, so the game goes on either way.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import requests
from rich.console import Console
from rich.markup import escape

from service.cli.play import screen
from service.cli.play.choices import Choice, describe, menu
from tabletop_client import Seat, TabletopClient, TabletopError
from tabletop_client.types import Envelope, Legal, View

WAIT_S = 25.0
"""How long one wait for news lasts before the view is asked again anyway."""

SENT, QUIT, RESIGNED = "sent", "quit", "resigned"
"""What :meth:`Player.act` did: sent a command (or had it refused), quit, resigned."""


@dataclass(frozen=True)
class StreamStopped:
    """Queued when the stream thread ends: ``error`` None after the game's last event."""

    error: BaseException | None


class Player:
    """Plays ``seat`` on ``console``; :meth:`run` returns the exit code."""

    def __init__(self, seat: Seat, console: Console) -> None:
        self.seat = seat
        self.console = console
        self.news: queue.Queue[Envelope | StreamStopped] = queue.Queue()
        self.streaming = False

    def run(self) -> int:
        view = self.seat.view()
        self._follow(view["version"])
        while True:
            legal = self.seat.legal()
            view = self.seat.view()
            if view["version"] != legal["version"]:
                continue  # the game moved between the two reads: read both again
            screen.show(self.console, view)
            if self.out(view):
                self.console.print("You are out of this game (you resigned or ran out of time); it plays on without you.")
                return 0
            if view["status"] in ("finished", "expired"):
                screen.show_end(self.console, view)
                if view["status"] == "finished":
                    self.console.print("Play again, in the same seat: [bold]tabletop play --rematch[/]")
                return 0
            if legal["commands"]:
                acted = self.act(legal)
                if acted == QUIT:
                    self.console.print(
                        "Left the game; your seat is kept: [bold]tabletop play --resume[/]"
                    )
                    return 0
            else:
                self.wait(view, legal)

    def out(self, view: View) -> bool:
        """Whether this seat has left a game that plays on without it (Schlitzohr)."""
        state: Mapping[str, Any] = view["state"] or {}
        return view["status"] == "running" and self.seat.seat in state.get("forfeited", ())

    # -- following the others ------------------------------------------------------

    def _follow(self, after: int) -> None:
        # Its own client (its own connection pool): a requests Session is not
        # meant to be shared between threads.
        follower = TabletopClient(self.seat.client.base_url)

        def pump() -> None:
            try:
                for envelope in follower.stream(
                    self.seat.game_id, token=self.seat.token, after=after
                ):
                    self.news.put(envelope)
                self.news.put(StreamStopped(None))
            except (requests.RequestException, TabletopError) as error:
                self.news.put(StreamStopped(error))

        self.streaming = True
        threading.Thread(target=pump, name="tabletop-play-stream", daemon=True).start()

    def wait(self, view: View, legal: Legal) -> None:
        """Until an event newer than ``view`` arrives (printing each), or ``WAIT_S``."""
        if view["status"] == "open":
            free = sum(1 for s in view["seats"] if s["name"] is None)
            self.console.print(
                f"Waiting for {free} more player(s). Others join with: "
                f"[bold]tabletop play --join {view['game_id']}[/]"
            )
        else:
            self.console.print(f"Waiting for seat(s) {', '.join(legal['to_act']) or '-'} ...")
        if not self.streaming:
            self.seat.view(after=view["version"], wait=WAIT_S)
            return
        try:
            item = self.news.get(timeout=WAIT_S)
            while True:
                if isinstance(item, StreamStopped):
                    self.streaming = False
                    if item.error is not None:
                        self.console.print(
                            f"[yellow]live updates stopped ({escape(str(item.error))}); polling instead[/]"
                        )
                    return
                screen.log(self.console, item)
                if item["version"] > view["version"] and self.news.empty():
                    return
                item = self.news.get(timeout=WAIT_S)
        except queue.Empty:
            return

    # -- acting --------------------------------------------------------------------

    def act(self, legal: Legal) -> str:
        """Offer the legal commands, send the chosen one: :data:`SENT` (or refused),
        :data:`QUIT` if the player quits, :data:`RESIGNED` once the seat gave up."""
        choices = menu(legal["commands"])
        self.console.print("[bold]Your turn.[/] Legal moves:")
        for number, choice in enumerate(choices, start=1):
            self.console.print(f"  {number:>3}) {escape(choice.label)}")
        while True:
            answer = self.ask(f"Choose 1-{len(choices)} (r to resign, q to quit): ")
            if answer is None or answer.lower() in ("q", "quit"):
                return QUIT
            if answer.lower() in ("r", "resign"):
                if self.resign():
                    return RESIGNED
                continue
            if answer.isdigit() and 1 <= int(answer) <= len(choices):
                break
            self.console.print("[red]Type one of the numbers shown.[/]")
        command = self.complete(choices[int(answer) - 1])
        if command is None:
            return QUIT
        try:
            self.seat.command(command)
            self.console.print(f"[green]sent:[/] {escape(describe(command))}")
        except TabletopError as refused:
            self.console.print(f"[bold red]Refused:[/] {refused.code}: {escape(refused.detail)}")
        return SENT

    def resign(self) -> bool:
        """Give the game up once the player confirms; whether it was given up."""
        answer = self.ask("Resign this game? You cannot come back and you do not win (yes/no): ")
        if answer is None or answer.lower() not in ("y", "yes"):
            return False
        try:
            self.seat.resign()
        except TabletopError as refused:
            self.console.print(f"[bold red]Refused:[/] {refused.code}: {escape(refused.detail)}")
            return False
        self.console.print("[green]You resigned.[/]")
        return True

    def complete(self, choice: Choice) -> dict[str, object] | None:
        if choice.command is not None:
            return choice.command
        size = len(choice.ear_sets[0])
        example = " ".join(str(e) for e in choice.ear_sets[0])
        while True:
            answer = self.ask(f"Which {size} ear(s) to inspect? (ids, e.g. {example}): ")
            if answer is None:
                return None
            try:
                command = choice.command_for_ears(
                    [int(part) for part in answer.replace(",", " ").split()]
                )
            except ValueError:
                command = None
            if command is not None:
                return command
            self.console.print(
                f"[red]Not a legal choice: name {size} distinct face-down ear ids.[/]"
            )

    def ask(self, prompt: str) -> str | None:
        try:
            return self.console.input(prompt).strip()
        except EOFError:
            return None
