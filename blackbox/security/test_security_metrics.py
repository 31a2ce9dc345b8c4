"""4./5. /metrics: label cardinality bounded by route patterns, and no sample injected through a path."""

import http.client
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from security_support import (  # noqa: E402
    HOST, http_request, metric_samples, RawHTTP, ServerTestCase, TIMEOUT,
)


# MARK: - 4. /metrics label cardinality


class MetricsCardinalityTests(ServerTestCase):
    """Item 4 (STYLE: metric labels use the matched route, never the raw path): unknown paths must not become
    label values, so /metrics stays small and never echoes what a client chose."""

    MAX_METRICS_BYTES = 64 * 1024
    ROUTE_PATTERN = re.compile(r"^(/([A-Za-z][A-Za-z0-9._-]{0,23}|\{[A-Za-z]+\}))+$")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = random.Random(20261201)
        cls.randoms = (["%064x" % rng.getrandbits(256) for _ in range(2000)]
                       + ["".join(rng.choice("0123456789abcdef") for _ in range(8000)) for _ in range(200)])
        http_request(cls.server.port, "GET", "/v1/exercises")  # one known route, to see labels exist at all
        conn = None
        try:
            for value in cls.randoms:
                for _ in range(2):  # one retry on a fresh connection if the server closed the old one
                    if conn is None:
                        conn = http.client.HTTPConnection(HOST, cls.server.port, timeout=TIMEOUT)
                    try:
                        conn.request("GET", "/v1/" + value)
                        resp = conn.getresponse()
                        resp.read()
                        if resp.will_close:
                            conn.close()
                            conn = None
                        break
                    except (http.client.HTTPException, OSError):
                        conn.close()
                        conn = None
        finally:
            if conn is not None:
                conn.close()
        cls.text = http_request(cls.server.port, "GET", "/metrics").body.decode("utf-8", "replace")

    def test_metrics_are_open_without_tokens(self):
        resp = self.request("GET", "/metrics")
        self.assertEqual(resp.status, 200, f"without --tokens /metrics is open: {resp}")
        self.assertIn(b"# TYPE ", resp.body)

    def test_metrics_stay_small(self):
        size = len(self.text.encode())
        self.assertLess(size, self.MAX_METRICS_BYTES,
                        f"/metrics is {size / 1024:.0f} KB after 2,200 requests to random unknown paths")

    def test_metrics_contain_none_of_the_random_paths(self):
        leaked = leaked_strings(self.text, self.randoms)
        self.assertEqual(len(leaked), 0, f"/metrics contains {len(leaked)} of the 2,200 random path segments, "
                                         f"e.g. {sorted(leaked)[0][:80] if leaked else ''}…")

    def test_route_labels_are_route_patterns(self):
        routes = set()
        for line in self.text.split("\n"):
            if line.startswith("motion_http_requests_total{"):
                match = re.search(r'route="((?:[^"\\]|\\.)*)"', line)
                self.assertIsNotNone(match, f"a motion_http_requests_total line without a route label: {line!r}")
                routes.add(match.group(1))
        self.assertIn("/v1/exercises", routes, "the matched route of GET /v1/exercises must be counted")
        bad = sorted(r for r in routes if r not in ("other", "static") and not self.ROUTE_PATTERN.match(r))
        self.assertEqual(bad[:5], [], f"{len(bad)} route labels are not route patterns (like /v1/sessions/{{id}}, "
                                      f"other, static)")
        self.assertLessEqual(len(routes), 64, f"{len(routes)} distinct route labels")


def leaked_strings(text, randoms, window=16):
    """The random strings of which some window-aligned 16-character piece appears in `text` (so any copy of 31 or
    more consecutive characters is found)."""
    pieces = {}
    for value in randoms:
        for start in range(0, len(value) - window + 1, window):
            pieces[value[start:start + window]] = value
    found = set()
    for run in re.findall(r"[0-9a-f]{%d,}" % window, text):
        for start in range(len(run) - window + 1):
            value = pieces.get(run[start:start + window])
            if value is not None:
                found.add(value)
    return found


# MARK: - 5. Metrics injection


class MetricsInjectionTests(ServerTestCase):
    """Item 5: a path with percent-encoded CR/LF, quotes and braces must not add lines to /metrics; every line
    stays a comment or a valid sample, and no raw CR appears."""

    SAMPLE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^\n]*\})? -?[0-9.eE+Inf-]+$")
    INJECTIONS = (
        "/v1/x%0D%0Amotion_live_sessions%20999%0D%0A%23",
        "/v1/y%0Amotion_live_sessions%20999%0A%23",
        "/v1/z%0Dmotion_live_sessions%20999%0D%23",
        "/v1/q%22%7D%20999%0Amotion_live_sessions%7Ba%3D%22b%22%7D%20999%0A%23",
        "/x%0D%0Amotion_live_sessions%20999%0D%0A%23",
    )

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for path in cls.INJECTIONS:
            raw = RawHTTP(cls.server.port)
            try:
                raw.send(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
                try:
                    raw.read_response()
                except (EOFError, OSError):
                    pass
            finally:
                raw.close()
        cls.body = http_request(cls.server.port, "GET", "/metrics").body

    def test_no_injected_sample(self):
        lines = [line.rstrip("\r") for line in self.body.decode("utf-8", "replace").split("\n")]
        injected = [line for line in lines if line.startswith("motion_live_sessions") and line.endswith(" 999")]
        self.assertEqual(injected, [], "a request path injected a motion_live_sessions sample into /metrics")
        self.assertEqual(len(metric_samples(self.body.decode("utf-8", "replace"), "motion_live_sessions")), 1,
                         "exactly one motion_live_sessions sample line")

    def test_no_carriage_return(self):
        self.assertNotIn(b"\r", self.body, "/metrics must not contain a raw CR")

    def test_every_line_is_a_comment_or_a_sample(self):
        bad = []
        for line in self.body.decode("utf-8", "replace").split("\n"):
            if line == "" or line.startswith("# HELP ") or line.startswith("# TYPE "):
                continue
            if not self.SAMPLE.match(line):
                bad.append(line)
        self.assertEqual(bad[:5], [], f"{len(bad)} lines of /metrics are neither # HELP/# TYPE nor samples")
