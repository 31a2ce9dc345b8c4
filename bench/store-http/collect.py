"""Pages through GET /v1/sessions (limit 500, following `next`) and writes what the query benchmarks pick from.

    python3 bench/store-http/collect.py BASE_URL OUT_DIR EXPECTED SUBJECTS

Writes OUT_DIR/ids.txt (every stored id), OUT_DIR/cursors.txt (the URL-encoded `next` cursor of every page, so of
every depth) and OUT_DIR/subjects.txt (patient-0 … patient-<SUBJECTS-1>). Exits non-zero unless exactly EXPECTED
distinct sessions come back, newest first, all finished. Prints a JSON line with the counts and the paging time.
Standard library only.
"""

import http.client
import json
import os
import sys
import time
import urllib.parse


def main():
    base, out, expected, subjects = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    ids, cursors, seen = [], [], set()
    previous_start = None
    cursor = None
    started = time.monotonic()
    pages = 0
    while True:
        path = "/v1/sessions?limit=500" + (f"&cursor={urllib.parse.quote(cursor, safe='')}" if cursor else "")
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"collect: GET {path} answered {response.status}: {body[:200]!r}")
        page = json.loads(body)
        pages += 1
        for session in page["sessions"]:
            if session["id"] in seen:
                sys.exit(f"collect: session {session['id']} came back twice")
            if session["status"] != "finished":
                sys.exit(f"collect: session {session['id']} is {session['status']}")
            if previous_start is not None and session["startedAt"] > previous_start:
                sys.exit(f"collect: not newest first at {session['id']}")
            previous_start = session["startedAt"]
            seen.add(session["id"])
            ids.append(session["id"])
        cursor = page["next"]
        if not cursor:
            break
        cursors.append(urllib.parse.quote(cursor, safe=""))
    elapsed = time.monotonic() - started
    conn.close()
    if len(ids) != expected:
        sys.exit(f"collect: {len(ids)} sessions stored, expected {expected}")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "ids.txt"), "w") as f:
        f.write("\n".join(ids) + "\n")
    with open(os.path.join(out, "cursors.txt"), "w") as f:
        f.write("\n".join(cursors) + "\n")
    with open(os.path.join(out, "subjects.txt"), "w") as f:
        f.write("\n".join(f"patient-{i}" for i in range(subjects)) + "\n")
    print(json.dumps({"sessions": len(ids), "pages": pages, "cursors": len(cursors),
                      "pagingSeconds": round(elapsed, 2)}))


if __name__ == "__main__":
    main()
