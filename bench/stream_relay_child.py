"""The relaying side of ``bench.stream_relay_bench``: one process, gevent-patched as the
API workers are, that follows games and writes each event it is handed to a socket.

    python -m bench.stream_relay_child MODE REDIS_PORT SINK_PORT PREFIX GAME_ID...

MODE is ``bare``, ``hub`` or ``ours`` (see ``bench.stream_relay_bench``). Prints
``ready`` once every game is followed, then reads ``start`` and ``stop`` lines on stdin
and answers one JSON line: the events relayed between them and this process's user and
system CPU meanwhile, in seconds.
"""

from gevent import monkey

monkey.patch_all()  # before anything opens a socket: as gunicorn's gevent worker does

import json
import resource
import socket
import sys
from collections.abc import Callable

import gevent
import gevent.event
import hiredis
import redis
from gevent.fileobject import FileObjectPosix

from events.redis_adapter.store import RedisEventStore
from service.http import sse
from service.http.live import LiveHub

relayed = 0
"""Events written to the sinks so far (greenlets only: no lock needed)."""


def sink(port: int) -> socket.socket:
    """A connection to the driver's sink: what an SSE client's socket is to a worker."""
    conn = socket.create_connection(("127.0.0.1", port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def relay_bare(redis_port: int, sink_port: int, channels: list[bytes]) -> None:
    """The floor: one subscriber socket, an event per game, the published text written
    as it came. No epochs, no gap check, no redaction."""
    woken: dict[bytes, tuple[gevent.event.Event, list[bytes]]] = {
        channel: (gevent.event.Event(), []) for channel in channels
    }

    def follower(channel: bytes) -> None:
        global relayed
        out, (event, box) = sink(sink_port), woken[channel]
        while True:
            event.wait(30)
            event.clear()
            messages, box[:] = box[:], []
            out.sendall(b"".join(b"data: %s\n\n" % message for message in messages))
            relayed += sum(message.count(b"\n") for message in messages)  # "first\ntext..."

    for channel in channels:
        gevent.spawn(follower, channel)
    conn = socket.create_connection(("127.0.0.1", redis_port))
    # hiredis's stub types pack_command's argument as a 1-tuple; it takes any length.
    conn.sendall(b"".join(hiredis.pack_command((b"SUBSCRIBE", c)) for c in channels))  # type: ignore[arg-type]
    reader, buffer = hiredis.Reader(), bytearray(65536)
    while size := conn.recv_into(buffer):
        reader.feed(buffer, 0, size)  # type: ignore[arg-type]  # takes any buffer
        while (reply := reader.gets()) is not False:
            if reply[0] == b"message":
                event, box = woken[reply[1]]
                box.append(reply[2])
                event.set()


def relay_hub(store: RedisEventStore, hub: LiveHub, game_id: str, sink_port: int) -> None:
    """The live hub and its waits; the entries written as handed over, not served."""
    global relayed
    out, following = sink(sink_port), hub.subscription(game_id)
    after = store.head(game_id).version
    while True:
        entries = following.wait_entries(after, 30)
        if entries:
            out.sendall(b"".join(b"id: %s\ndata: %s\n\n" % (i, f[b"e"]) for i, f in entries))
            after += len(entries)
            relayed += len(entries)
        elif entries == []:  # read for yourself: (re)subscribed
            after = store.head(game_id).version


def relay_ours(store: RedisEventStore, hub: LiveHub, game_id: str, sink_port: int) -> None:
    """What a game's event stream does for seat 0 (``service.http.sse.event_stream``)."""
    global relayed
    out, following = sink(sink_port), hub.subscription(game_id)
    after = store.head(game_id).version
    for chunk in sse.event_stream(
        store, game_id, 0, after, 1e9, 30, wait=following.wait_entries
    ):
        out.sendall(chunk.encode())
        relayed += chunk.count("\nevent: ")  # once per message: data lines hold no newline


def main(argv: list[str]) -> None:
    mode, redis_port, sink_port, prefix, *game_ids = argv
    client = redis.Redis(port=int(redis_port))
    store = RedisEventStore(client, prefix=prefix)
    if mode == "bare":
        channels = [store.keys(g).live.encode() for g in game_ids]
        gevent.spawn(relay_bare, int(redis_port), int(sink_port), channels)
    else:
        hub = LiveHub(client, lambda g: store.keys(g).live)
        relay: Callable[..., None] = relay_hub if mode == "hub" else relay_ours
        for game_id in game_ids:
            gevent.spawn(relay, store, hub, game_id, int(sink_port))
    gevent.sleep(1.0)  # every subscription confirmed
    print("ready", flush=True)
    stdin = FileObjectPosix(sys.stdin.fileno(), "r")  # cooperative: the relays go on
    stdin.readline()
    before, count = resource.getrusage(resource.RUSAGE_SELF), relayed
    stdin.readline()
    after = resource.getrusage(resource.RUSAGE_SELF)
    report = {
        "events": relayed - count,
        "user_s": after.ru_utime - before.ru_utime,
        "system_s": after.ru_stime - before.ru_stime,
    }
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
