"""``bench.protocol_bench.Gate``: the servers of a repeat take turns, and no request of
one side runs in another side's turn (else one side's figures would hold the other's load)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from bench.protocol_bench import Gate


def test_a_closed_gate_holds_new_requests_and_close_waits_for_those_in_flight() -> None:
    async def scenario() -> list[str]:
        gate, log = Gate(), []

        async def request(name: str, seconds: float) -> None:
            if await gate.enter():
                log.append(f"start {name}")
                await asyncio.sleep(seconds)
                log.append(f"end {name}")
                gate.leave()

        gate.open()
        slow = asyncio.create_task(request("slow", 0.05))
        await asyncio.sleep(0)  # it is in flight
        await gate.close()  # returns only once "slow" is back
        log.append("closed")
        held = asyncio.create_task(request("held", 0))
        await asyncio.sleep(0.02)
        assert gate.in_flight == 0 and not held.done()  # waiting for the next turn
        gate.open()
        await held
        gate.finish()
        late = await gate.enter()  # the run is over: nothing more is sent
        log.append(f"after finish: {late}")
        await slow
        return log

    # A loop of its own in a thread of its own: another test in this process may have
    # left an event loop running in this thread (asyncio.run would refuse).
    with ThreadPoolExecutor(1) as pool:
        log = pool.submit(lambda: asyncio.run(scenario())).result()
    assert log == [
        "start slow", "end slow", "closed", "start held", "end held", "after finish: False"
    ]
