-- wrk script: stores exactly TOTAL sessions through POST /v1/analyze, then stops.
--
--     wrk -tT -c32 -d600s -s bench/store-http/store-post.lua URL -- TEMPLATES_FILE TOTAL SUBJECTS T
--
-- TEMPLATES_FILE (bench/store-http/gen.py) has one `frames` JSON array a line; request n (counted per thread,
-- threads interleaved) sends template n % #templates with subject "patient-<n % SUBJECTS>". Each thread sends its
-- share of TOTAL analyze requests; once it has, further requests are `GET /healthz` fillers sent 10 ms apart (wrk has
-- no request count limit), and the thread stops when every analyze request it sent has been answered, or when
-- STALL_FILLERS fillers in a row came back without one (an analyze request that is never answered: wrk does not
-- abandon a request, it only counts it as a timeout). done() prints `store-post: sent=… ok=… failed=…`, so the
-- caller can check that every request was stored (ok < sent: some were never answered).

local threads = {}
local counter = 1

function setup(thread)
    thread:set("tid", counter)
    counter = counter + 1
    table.insert(threads, thread)
end

function init(args)
    templates = {}
    for line in io.lines(args[1]) do
        if #line > 0 then table.insert(templates, line) end
    end
    total = tonumber(args[2])
    subjects = tonumber(args[3])
    nthreads = tonumber(args[4]) -- wrk's -t: each thread runs in its own Lua state and cannot count the others
    -- this thread's share: requests tid-1, tid-1+n, … below total
    quota = 0
    local n = tid - 1
    while n < total do
        quota = quota + 1
        n = n + nthreads
    end
    sent, answered, ok, failed, fillers = 0, 0, 0, 0, 0
    filler = wrk.format("GET", "/healthz")
    headers = { ["Content-Type"] = "application/json" }
end

STALL_FILLERS = 3000 -- ≥ 3 s without an analyze answer at 16 connections a thread

function delay()
    if sent >= quota then return 10 end
    return 0
end

function request()
    -- wrk calls request() once in the first thread's state before the run (script_verify_request, to count
    -- pipelined requests) and throws the result away: that call must not use up a session.
    if tid == 1 and not verified then
        verified = true
        return filler
    end
    if sent >= quota then return filler end
    local n = (tid - 1) + sent * nthreads
    sent = sent + 1
    local body = '{"exercise":"elbowFlexion","side":"right","subject":"patient-' .. (n % subjects) ..
        '","frames":' .. templates[(n % #templates) + 1] .. '}'
    return wrk.format("POST", "/v1/analyze", headers, body)
end

function response(status, headers, body)
    if body == "ok" then -- a /healthz filler
        fillers = fillers + 1
        if answered >= quota or fillers >= STALL_FILLERS then wrk.thread:stop() end
        return
    end
    fillers = 0
    answered = answered + 1
    if status == 200 then ok = ok + 1 else failed = failed + 1 end
    if answered >= quota then wrk.thread:stop() end
end

function done(summary, latency, requests)
    local s, o, f = 0, 0, 0
    for _, thread in ipairs(threads) do
        s = s + thread:get("sent")
        o = o + thread:get("ok")
        f = f + thread:get("failed")
    end
    io.write(string.format("store-post: sent=%d ok=%d failed=%d\n", s, o, f))
end
