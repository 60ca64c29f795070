-- Shared by the wrk scripts of bench/compare-kannel.sh: per-thread request numbering, the rotation of `from` and
-- `to`, and a done() that writes wrk's figures as JSON to WRK_RESULT.
local M = {}

function M.encode(s)
  return (string.gsub(s, "[^%w%-%._~]", function(c)
    return string.format("%%%02X", string.byte(c))
  end))
end

function M.text(n)
  return "Your code is " .. n .. ". Reply STOP to opt out."
end

function M.install(build)
  local threads = {}
  local prefix = os.getenv("FROM_PREFIX")
  local count = tonumber(os.getenv("FROM_COUNT"))
  local stride = tonumber(os.getenv("WRK_THREADS"))

  function setup(thread)
    thread:set("thread_index", #threads)
    table.insert(threads, thread)
  end

  local n = 0
  function request()
    -- Request k of all threads: thread i sends k = i, i + threads, i + 2 × threads, … so that the threads together
    -- go through every `from` in turn.
    local k = n * stride + thread_index
    n = n + 1
    local from = prefix .. string.format("%04d", k % count)
    -- Destinations +1 415 2xx xxxx, a million of them.
    local to = "14152" .. string.format("%06d", k % 1000000)
    return build(k, from, to)
  end

  function done(summary, latency, requests)
    local e = summary.errors
    local out = io.open(os.getenv("WRK_RESULT"), "w")
    out:write(string.format(
      '{"durationUs":%d,"requests":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},'
        .. '"latencyUs":{"mean":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d}}\n',
      summary.duration, summary.requests, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
      latency.mean, latency.max, latency:percentile(50), latency:percentile(90), latency:percentile(99)))
    out:close()
  end
end

return M
