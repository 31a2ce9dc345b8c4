-- wrk script: GET PREFIX<line> for a random line of a file (session ids, subjects or cursors).
--
--     wrk -t2 -c16 -d10s --latency -s bench/store-http/get-random.lua URL -- FILE PREFIX [SUFFIX]
--
-- e.g. FILE=ids.txt PREFIX=/v1/sessions/ for random sessions, FILE=subjects.txt
-- PREFIX='/v1/sessions?limit=50&subject=' for a filtered list, FILE=cursors.txt PREFIX='/v1/sessions?limit=50&cursor='
-- for a page at a random depth. Lines are used as they are (URL-encode them beforehand). No response() callback, so
-- wrk does not hand every body to Lua; its own "Non-2xx or 3xx responses" line reports failures.

local counter = 1

function setup(thread)
    thread:set("tid", counter)
    counter = counter + 1
end

function init(args)
    lines = {}
    for line in io.lines(args[1]) do
        if #line > 0 then table.insert(lines, line) end
    end
    prefix = args[2]
    suffix = args[3] or ""
    math.randomseed(7919 * tid + os.time())
end

function request()
    return wrk.format("GET", prefix .. lines[math.random(#lines)] .. suffix)
end
