-- wrk script: a distinct 10-object predict per request (rtt_ms differs), so no answer comes from the cache.
-- Used by bench/api_load.py; the fixed part of the query comes from the environment (BENCH_QUERY).
local query = os.getenv("BENCH_QUERY") or "page.object_count=10&page.object_size_bytes=2544"
local n = 0
math.randomseed(os.time())
request = function()
  n = n + 1
  local rtt = string.format("%.9f", 1 + math.random() * 999 + n * 1e-7)
  return wrk.format("GET", "/api/v1/predict?network.rtt_ms=" .. rtt .. "&" .. query)
end
