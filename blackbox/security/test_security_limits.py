"""6./7. Limits: `subject` in bytes and Unicode scalars, exercise names like subjects, and the HTTP session caps per
tenant and in total."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from security_support import (  # noqa: E402
    ALICE, BOB, metric_samples, OPERATOR_TOKENS, OPS, ServerTestCase,
)


# MARK: - 6. Subject


class SubjectTests(ServerTestCase):
    """Item 6: `subject` is at most 256 bytes of UTF-8 and 128 Unicode scalars (docs/protocol.md's "128 chars", JSON
    Schema's `maxLength`) — never counted in grapheme clusters, one of which can be a megabyte — and refuses
    invisible format/control characters (C1 NEL, bidi overrides and isolates), over REST (400 `invalidMessage`)
    and in the WebSocket `start` (an `error`, no `started`)."""

    COMBINING = "a" + "\u0301" * 500_000  # one grapheme cluster, 1,000,001 bytes
    # 129 scalars; then 257 bytes of multi-byte scalars, within 128 scalars.
    TOO_LONG = ("x" * 129, "\u00e9" * 129, "a" + "\u0301" * 128, "\U0001F600" * 63 + "\u20ac\u00e9",
                "\u20ac" * 85 + "\u00e9", "\u00e9" * 127 + "\u20ac")
    LONGEST = ("x" * 128, "\u00e9" * 128, "\U0001F600" * 64, "\u20ac" * 85 + "x")  # 128 bytes, then 256 each
    INVISIBLE = ("patient\u0085next", "patient\u202e71-tneitap", "patient\u2066isolated\u2069")

    def post_subject(self, subject, ensure_ascii):
        body = json.dumps({"exercise": "squat", "subject": subject}, ensure_ascii=ensure_ascii).encode("utf-8")
        return self.request("POST", "/v1/sessions", body=body)

    def stream_start(self, subject, ensure_ascii):
        """The first reply to a `start` with this subject on a fresh /v1/stream."""
        ws = self.ws("/v1/stream")
        try:
            self.assertEqual(ws.status, 101, f"/v1/stream must upgrade: {ws.status} {ws.body!r}")
            ws.send_text(json.dumps({"type": "start", "exercise": "squat", "subject": subject},
                                    ensure_ascii=ensure_ascii))
            reply, seen = ws.first_message()
            return reply, seen
        finally:
            ws.close()

    def test_one_grapheme_of_a_megabyte_is_refused(self):
        resp = self.post_subject(self.COMBINING, ensure_ascii=False)
        self.assertError(resp, 400, "invalidMessage", "a subject of one 1 MB grapheme (a + 500,000 U+0301)")

    def test_subject_over_256_bytes_or_128_scalars_is_refused(self):
        for subject in self.TOO_LONG:
            with self.subTest(chars=len(subject), bytes=len(subject.encode())):
                self.assertError(self.post_subject(subject, ensure_ascii=False), 400, "invalidMessage",
                                 f"a subject of {len(subject.encode())} bytes ({len(subject)} characters)")

    def test_subject_of_256_bytes_or_128_scalars_is_accepted(self):
        for subject in self.LONGEST:
            with self.subTest(chars=len(subject), bytes=len(subject.encode())):
                resp = self.post_subject(subject, ensure_ascii=False)
                self.assertEqual(resp.status, 201,
                                 f"a subject of {len(subject)} scalars ({len(subject.encode())} bytes) is within the limit: {resp}")
                self.request("POST", f"/v1/sessions/{resp.json()['id']}/stop")

    def test_invisible_format_characters_are_refused(self):
        for subject in self.INVISIBLE:
            with self.subTest(subject=subject.encode("unicode_escape").decode()):
                self.assertError(self.post_subject(subject, ensure_ascii=True), 400, "invalidMessage",
                                 f"subject {subject.encode('unicode_escape').decode()}")

    def test_websocket_start_refuses_the_same_subjects(self):
        for subject in (self.COMBINING,) + self.TOO_LONG + self.INVISIBLE:
            label = subject[:12].encode("unicode_escape").decode() + f"… ({len(subject.encode())} bytes)"
            with self.subTest(subject=label):
                reply, seen = self.stream_start(subject, ensure_ascii=subject in self.INVISIBLE)
                self.assertIsInstance(reply, dict, f"no reply to start with subject {label}; events: {seen[:3]}")
                self.assertEqual((reply.get("type"), reply.get("code")), ("error", "invalidMessage"),
                                 f"start with subject {label} must be refused, got {str(reply)[:200]}")

    def test_websocket_start_accepts_256_bytes(self):
        reply, seen = self.stream_start("\U0001F600" * 64, ensure_ascii=True)
        self.assertIsInstance(reply, dict, f"no reply to start; events: {seen[:3]}")
        self.assertEqual(reply.get("type"), "started", f"a 256-byte (64-scalar) subject is within the limit: {reply}")


# MARK: - 7. HTTP session caps


class ExerciseNameTests(ServerTestCase):
    """Item 6, exercise names and ids: a custom exercise's name follows the subject's rule (no bidi overrides or
    isolates, no C1 or line separators: a name shown to a clinician must read as it is), and a custom id is unique
    without regard to case, built-ins included (`ElbowFlexion` beside `elbowFlexion` would be two exercises that
    read as one)."""

    @staticmethod
    def definition(exercise_id, name):
        return {"id": exercise_id, "name": name, "view": "sagittal", "kind": "rep",
                "measurement": {"type": "flexion", "joints": ["shoulder", "elbow", "wrist"]},
                "thresholds": {"rest": 20, "enter": 70, "exit": 40, "minAmplitude": 30}, "target": 110}

    def post(self, exercise_id, name):
        body = json.dumps(self.definition(exercise_id, name), ensure_ascii=True).encode()
        return self.request("POST", "/v1/exercises", body=body)

    def test_bidi_and_control_characters_in_a_name_are_refused(self):
        for index, name in enumerate(("Curl \u202eelbow", "Curl\u2066x\u2069", "Curl\u0085next", "Curl\u2028two")):
            with self.subTest(name=name.encode("unicode_escape").decode()):
                resp = self.post(f"nameRule{index}", name)
                self.assertEqual(resp.status, 422, f"a name with {name.encode('unicode_escape').decode()}: {resp}")
                self.assertEqual(resp.json()["error"].get("pointer"), "/name", resp.json())

    def test_ids_are_unique_without_regard_to_case(self):
        resp = self.post("ElbowFlexion", "Elbow flexion, again")
        self.assertEqual(resp.status, 409, f"ElbowFlexion beside the built-in elbowFlexion: {resp}")
        first = self.post("clinicCurl", "Clinic curl")
        self.assertEqual(first.status, 201, first)
        again = self.post("ClinicCURL", "Clinic curl, shouted")
        self.assertEqual(again.status, 409, f"ClinicCURL beside clinicCurl: {again}")


class HTTPSessionCapTests(ServerTestCase):
    """Item 7 (STYLE: per-tenant objects have a bound): sessions opened with POST /v1/sessions are capped per
    tenant (429 `tooManySessions`) and in total (503 `serverBusy`); stopping one frees its slot; the gauge
    `motion_http_sessions` counts the open ones."""

    TOKENS = OPERATOR_TOKENS
    FLAGS = ("--max-http-sessions", "6", "--max-http-sessions-per-tenant", "4")

    def create(self, token):
        return self.request("POST", "/v1/sessions", body={"exercise": "squat"}, token=token)

    def gauge(self):
        values = metric_samples(self.metrics(token=OPS), "motion_http_sessions")
        self.assertTrue(values, "/metrics has no motion_http_sessions gauge")
        return sum(values)

    def test_caps_per_tenant_and_in_total(self):
        alice = []
        for number in range(1, 5):
            resp = self.create(ALICE)
            self.assertEqual(resp.status, 201, f"alice's session {number} of 4 must be created: {resp}")
            alice.append(resp.json()["id"])
        self.assertEqual(self.gauge(), 4, "motion_http_sessions after alice's 4")
        self.assertError(self.create(ALICE), 429, "tooManySessions", "alice's 5th session (tenant cap 4)")
        for number in range(1, 3):
            resp = self.create(BOB)
            self.assertEqual(resp.status, 201, f"bob's session {number} of 2 must be created: {resp}")
        self.assertEqual(self.gauge(), 6, "motion_http_sessions with 6 open")
        self.assertError(self.create(BOB), 503, "serverBusy", "bob's 3rd session (server cap 6 reached)")
        self.assertEqual(self.gauge(), 6, "refused sessions are not counted")

        stopped = self.request("POST", f"/v1/sessions/{alice[0]}/stop", token=ALICE)
        self.assertEqual(stopped.status, 200, f"alice stops one of her sessions: {stopped}")
        self.assertEqual(self.gauge(), 5, "motion_http_sessions after a stop")
        again = self.create(ALICE)
        self.assertEqual(again.status, 201, f"after a stop alice may create a session again: {again}")
        self.assertEqual(self.gauge(), 6, "motion_http_sessions after alice's new session")
