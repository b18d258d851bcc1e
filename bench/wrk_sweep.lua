-- wrk script: POST a 200-point, five-protocol sweep of network.rtt_ms over a 10-object page.
-- BENCH_UNIQUE=1 makes every request's start value differ, so no answer comes from the cache.
local unique = os.getenv("BENCH_UNIQUE") == "1"
local n = 0
math.randomseed(os.time())
local headers = {["Content-Type"] = "application/json"}
local template = '{"field":"network.rtt_ms","start":%s,"stop":1000,"steps":200,"spacing":"log",'
  .. '"scenario":{"page":{"object_count":10,"object_size_bytes":2544}}}'
request = function()
  n = n + 1
  local start = "10"
  if unique then
    start = string.format("%.9f", 10 + math.random() + n * 1e-7)
  end
  return wrk.format("POST", "/api/v1/sweep", headers, string.format(template, start))
end
