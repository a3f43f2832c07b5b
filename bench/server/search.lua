-- wrk script of the server load test (bench/server/run.sh): POSTs the
-- search bodies of requests.jsonl (one JSON body a line, made by
-- `server_bench prep`) in turn, each wrk thread from its own offset, and
-- prints one machine-readable RESULT line at the end.
--
--   wrk -t1 -c16 -d60s --latency -s search.lua \
--       http://127.0.0.1:PORT/v1/collections/debian/search -- requests.jsonl
--
--   wrk -t1 -c1 -d20s --latency -s search.lua http://127.0.0.1:PORT/livez -- GET
--       (the floor: a bodiless GET of the URL, the same RESULT line)
--
-- Non-2xx answers are counted by wrk itself ("Non-2xx or 3xx responses",
-- summary.errors.status); no response() callback is defined, so wrk does
-- not hand bodies to Lua and stays cheap.

local threads = {}

-- Runs in the main Lua state once per wrk thread, before init().
function setup(thread)
  thread:set("offset", #threads)
  table.insert(threads, thread)
end

local requests = {}
local index = 0

function init(args)
  local path = args[1]
  if path == nil then
    error("usage: wrk ... -s search.lua URL -- requests.jsonl")
  end
  if path == "GET" then
    requests[1] = wrk.format("GET")
    return
  end
  local headers = { ["Content-Type"] = "application/json" }
  for line in io.lines(path) do
    if #line > 0 then
      requests[#requests + 1] = wrk.format("POST", nil, headers, line)
    end
  end
  if #requests == 0 then
    error(path .. " holds no requests")
  end
  -- Spread the threads over the file so that they do not ask the same
  -- searches at the same time.
  index = math.floor((offset or 0) * #requests / 7) % #requests
end

function request()
  index = index % #requests + 1
  return requests[index]
end

-- Runs in the main Lua state after the run, over every thread's statistics.
function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "RESULT side=http requests=%d seconds=%.3f p50_us=%.1f p99_us=%.1f mean_us=%.1f " ..
    "max_us=%.1f status_errors=%d connect_errors=%d read_errors=%d write_errors=%d " ..
    "timeouts=%d bytes=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    latency.mean, latency.max, e.status, e.connect, e.read, e.write, e.timeout, summary.bytes))
end
