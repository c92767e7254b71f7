-- wrk script of bench/api_bench.py: each wrk thread owns ONE connection and replays
-- its own file of prepared requests, in order (one line = "path<TAB>token<TAB>body").
-- The requests of one file are the commands of the connection's own games, each sent
-- with the version the previous one produced, so every one of them is legal and fresh.
-- args[1] = directory of the files conn-<n>.tsv; args[2] = "cycle" to repeat the file
-- (the bare endpoint: any request is as good as the next).
-- done() prints one line "BENCH_JSON {...}" with the figures bench/api_bench.py reads.

local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  table.insert(threads, thread)
  counter = counter + 1
end

function init(args)
  prepared = {}
  for line in io.lines(args[1] .. "/conn-" .. id .. ".tsv") do
    local path, token, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
    local headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token}
    table.insert(prepared, wrk.format("POST", path, headers, body))
  end
  if id == 0 then
    -- wrk calls request() once on thread 0 before the run, to inspect the script
    -- (script_verify_request); that call gets a copy, so no prepared command is lost.
    table.insert(prepared, 1, prepared[1])
  end
  cycle = args[2] == "cycle"
  sent = 0
  exhausted = 0
end

function request()
  sent = sent + 1
  if sent > #prepared then
    if not cycle then
      -- Out of prepared commands: resend the last one. It is stale (409) and shows up
      -- as a non-2xx response, which makes bench/api_bench.py reject the run.
      exhausted = exhausted + 1
      return prepared[#prepared]
    end
    sent = 1
  end
  return prepared[sent]
end

function done(summary, latency, requests)
  local exhausted_total = 0
  for _, thread in ipairs(threads) do
    exhausted_total = exhausted_total + (thread:get("exhausted") or 0)
  end
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "non_2xx": %d, "socket_errors": %d, ' ..
    '"p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d, "exhausted": %d}\n',
    summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, exhausted_total))
end
