"""Programmes, patient codes and adherence (docs/protocol.md §5.3, §6.1) against a real server with tokens, on SQLite
and on PostgreSQL: a clinic prescribes a programme and makes a patient code; the patient runs sessions of its items
over WebSocket with the code to goal met and goal not met; adherence counts them; and every route of openapi.json
is walked with the code to check what it may and may not do. Each store's servers are their own.
"""

import datetime
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_support import ConnectionClosed, InvalidStatus, Server, UNKNOWN_ID  # noqa: E402
from cluster import Postgres, postgres_binaries  # noqa: E402

CLINIC = "clinic-token-0123456789abcdef"
OTHER_CLINIC = "other-token-0123456789abcdefg"
SUBJECT = "patient-17"
OTHER = "patient-99"


def demo_frames(server, token):
    """The simulated sit-to-stands: six reps, the second and fifth with a form fault, so four clean."""
    response = server.get("/v1/exercises/sitToStand/demo", token=token)
    assert response.status == 200, response
    frames = response.json()["frames"]
    for frame in frames:
        frame.pop("type", None)
    return frames


def programme_body(subject=SUBJECT):
    today = datetime.datetime.now(datetime.timezone.utc).date()
    return {
        "subject": subject, "title": "Knee, weeks 1-4", "startsOn": (today - datetime.timedelta(days=7)).isoformat(),
        "endsOn": (today + datetime.timedelta(days=21)).isoformat(),
        "items": [
            {"item": "easy", "exercise": "sitToStand", "side": None, "perWeek": 5,
             "prescription": {"reps": 2, "sets": 2, "restSeconds": 60, "target": None, "holdSeconds": None},
             "instructions": {"en": "Arms crossed, stand up fully.", "es": "Brazos cruzados, levántese del todo."}},
            {"item": "hard", "exercise": "sitToStand", "perWeek": 3, "prescription": {"reps": 3, "sets": 2}},
        ]}


class ProgrammeFlow:
    """The whole flow on one server; subclasses give the database."""

    database = None

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="motion-programmes-")
        tokens = os.path.join(cls.dir.name, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{CLINIC} clinicA\n{OTHER_CLINIC} clinicB\n")
        cls.server = Server(database=cls.database_url(), tokens=tokens).start()
        s = cls.server
        created = s.post("/v1/programmes", programme_body(), token=CLINIC)
        assert created.status == 201, created
        cls.programme = created.json()
        other = s.post("/v1/programmes", programme_body(OTHER), token=CLINIC)
        assert other.status == 201, other
        cls.other_programme = other.json()
        code = s.post(f"/v1/subjects/{SUBJECT}/access", {"expiresInSeconds": 3600}, token=CLINIC)
        assert code.status == 201, code
        cls.code = code.json()
        cls.frames = demo_frames(s, CLINIC)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.stop_database()
        cls.dir.cleanup()

    @classmethod
    def database_url(cls):
        return None

    @classmethod
    def stop_database(cls):
        pass

    # -- helpers ------------------------------------------------------------------------------------------------

    def run_item(self, item, *, subprotocol=False, demo=False, token=None):
        """A whole session of `item` over WebSocket with the patient code (or `token`); returns the summary."""
        token = token or self.code["code"]
        ws = (self.server.ws(subprotocols=[f"bearer.{token}"]) if subprotocol else self.server.ws(token=token))
        try:
            start = {"programme": {"id": self.programme["id"], "item": item}, "options": {"snapshots": "off"}}
            if demo:
                start["demo"] = True
            started = ws.start(**start)
            self.assertEqual(started["exercise"]["id"], "sitToStand")
            for index in range(0, len(self.frames), 500):
                ws.send({"type": "poses", "frames": self.frames[index:index + 500]})
            ws.send({"type": "stop"})
            messages = ws.recv_until(lambda m: m.get("type") in ("summary", "error"), timeout=30)
            summary = messages[-1]
            self.assertEqual(summary.get("type"), "summary", messages[-3:])
            code, _, _ = ws.close_code()
            self.assertEqual(code, 1000)
            return summary
        finally:
            ws.close()

    def adherence(self, token, query=""):
        today = datetime.datetime.now(datetime.timezone.utc).date()
        response = self.server.get(
            f"/v1/subjects/{SUBJECT}/adherence?from={today.isoformat()}&to={today.isoformat()}{query}", token=token)
        self.assertEqual(response.status, 200, response)
        weeks = response.json()["weeks"]
        self.assertEqual(len(weeks), 1)
        return {entry["item"]: entry for entry in weeks[0]["items"]}

    # -- the flow -----------------------------------------------------------------------------------------------

    def test_1_patient_sessions_meet_and_miss_their_goal_and_adherence_counts_them(self):
        met = self.run_item("easy")
        self.assertEqual(met["subject"], SUBJECT, "the programme's subject")
        self.assertEqual(met["programme"], {"id": self.programme["id"], "version": 1, "item": "easy"})
        self.assertEqual(met["goal"], {"sets": 2, "setsDone": 2, "repsPerSet": 2, "met": True})
        self.assertEqual(met["prescription"]["reps"], 2)
        self.assertFalse(met["demo"])
        missed = self.run_item("hard", subprotocol=True)
        self.assertEqual(missed["goal"], {"sets": 2, "setsDone": 1, "repsPerSet": 3, "met": False})
        stored = self.server.get(f"/v1/sessions/{missed['id']}", token=self.code["code"])
        self.assertEqual(stored.status, 200, stored)
        self.assertEqual(stored.json()["goal"]["met"], False, "REST history keeps the goal")

        demo = self.run_item("easy", demo=True, token=CLINIC)
        self.assertTrue(demo["demo"])

        for token in (CLINIC, self.code["code"]):
            items = self.adherence(token)
            self.assertEqual(items["easy"]["prescribed"], 5)
            self.assertEqual(items["easy"]["sessions"], 1, "the demonstration is left out")
            self.assertEqual(items["easy"]["goalMet"], 1)
            self.assertEqual(items["hard"]["prescribed"], 3)
            self.assertEqual(items["hard"]["sessions"], 1)
            self.assertEqual(items["hard"]["goalMet"], 0)
            self.assertEqual(items["easy"]["programme"], self.programme["id"])
            self.assertEqual(items["easy"]["exercise"], "sitToStand")
        with_demo = self.adherence(CLINIC, "&demo=include&tz=Europe/Madrid")
        self.assertEqual(with_demo["easy"]["sessions"], 2)
        self.assertEqual(with_demo["easy"]["goalMet"], 2)
        self.assertEqual(self.server.get(f"/v1/subjects/{SUBJECT}/adherence?tz=Nowhere/Else", token=CLINIC).status,
                         400)
        progress = self.server.get(f"/v1/subjects/{SUBJECT}/progress", token=CLINIC).json()["sessions"]
        self.assertEqual(len(progress), 2, "progress leaves demonstrations out too")
        listed = self.server.get(f"/v1/sessions?subject={SUBJECT}", token=CLINIC).json()["sessions"]
        self.assertEqual(sorted(s["demo"] for s in listed), [False, False, True], "REST shows the flag")

    def test_1b_sets_count_as_the_session_ran_them(self):
        """docs/programmes.md "Goals": the simulated sit-to-stands twice, 30 s of rest between: eight clean reps,
        enough for one set of 5 by the whole count, but no five of them in a row, so the goal is not met; adherence
        (which reads the stored count, not the reps) agrees."""
        subject = "patient-rests"
        body = programme_body(subject)
        body["items"] = [{"item": "five", "exercise": "sitToStand", "perWeek": 1, "prescription": {"reps": 5}},
                         {"item": "four", "exercise": "sitToStand", "perWeek": 1,
                          "prescription": {"reps": 4, "sets": 2}}]
        created = self.server.post("/v1/programmes", body, token=CLINIC)
        self.assertEqual(created.status, 201, created)
        programme = created.json()
        last = self.frames[-1]["t"]
        rested = self.frames + [dict(frame, t=frame["t"] + last + 30) for frame in self.frames]
        summaries = {}
        for item in ("five", "four"):
            ws = self.server.ws(token=CLINIC)
            try:
                ws.start(programme={"id": programme["id"], "item": item}, options={"snapshots": "off"})
                for index in range(0, len(rested), 500):
                    ws.send({"type": "poses", "frames": rested[index:index + 500]})
                ws.send({"type": "stop"})
                summaries[item] = ws.recv_until(lambda m: m.get("type") in ("summary", "error"), timeout=30)[-1]
            finally:
                ws.close()
        five, four = summaries["five"], summaries["four"]
        self.assertEqual(five.get("type"), "summary", five)
        self.assertEqual(five["repCount"], 8, "four clean reps in each run")
        self.assertEqual(five["goal"], {"sets": 1, "setsDone": 0, "repsPerSet": 5, "met": False},
                         "eight clean reps, but a rest after the fourth")
        self.assertEqual(four["goal"], {"sets": 2, "setsDone": 2, "repsPerSet": 4, "met": True}, "a set each run")
        today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        weeks = self.server.get(f"/v1/subjects/{subject}/adherence?from={today}&to={today}", token=CLINIC).json()
        items = {entry["item"]: entry for entry in weeks["weeks"][0]["items"]}
        self.assertEqual((items["five"]["sessions"], items["five"]["goalMet"]), (1, 0))
        self.assertEqual((items["four"]["sessions"], items["four"]["goalMet"]), (1, 1))
        stored = self.server.get(f"/v1/sessions/{five['id']}", token=CLINIC).json()
        self.assertEqual(stored["goal"]["setsDone"], 0, "the stored session says the same")

    def test_2_a_patient_code_reaches_its_subject_only_on_every_route(self):
        s = self.server
        code = self.code["code"]
        mine = s.post("/v1/sessions", {"programme": {"id": self.programme["id"], "item": "easy"}}, token=code)
        self.assertEqual(mine.status, 201, mine)
        mine_id = mine.json()["id"]
        theirs = s.post("/v1/sessions", {"programme": {"id": self.other_programme["id"], "item": "easy"}},
                        token=CLINIC)
        self.assertEqual(theirs.status, 201, theirs)
        theirs_id = theirs.json()["id"]
        refused = s.post("/v1/sessions", {"programme": {"id": self.other_programme["id"], "item": "easy"}},
                         token=code)
        self.assertEqual(refused.status, 400, refused)
        self.assertEqual(refused.json()["error"]["code"], "unknownProgramme")

        ids = {"session": (mine_id, theirs_id), "programme": (self.programme["id"], self.other_programme["id"])}
        # What a patient code may do on each route (method, openapi path): "read" 200; "own" 200 for its subject,
        # session or programme and 404 for another's; "forbidden" 403; "start" only programme items (400 else);
        # "open" its own open HTTP session (404 for another's); "socket" checked over WebSocket below.
        rules = {
            ("GET", "/healthz"): "read", ("GET", "/readyz"): "read", ("GET", "/openapi.json"): "read",
            ("GET", "/metrics"): "forbidden",
            ("GET", "/v1/exercises"): "read", ("POST", "/v1/exercises"): "forbidden",
            ("GET", "/v1/exercises/{id}"): "read", ("PUT", "/v1/exercises/{id}"): "forbidden",
            ("DELETE", "/v1/exercises/{id}"): "forbidden",
            ("GET", "/v1/exercises/{id}/versions/{version}"): "read",
            ("POST", "/v1/exercises/preview"): "forbidden", ("GET", "/v1/exercises/{id}/demo"): "read",
            ("POST", "/v1/exercises/demo"): "forbidden", ("GET", "/v1/formats"): "read",
            ("POST", "/v1/sessions"): "start", ("GET", "/v1/sessions"): "own",
            ("GET", "/v1/sessions/{id}"): "own", ("DELETE", "/v1/sessions/{id}"): "forbidden",
            ("GET", "/v1/sessions/{id}/series"): "own", ("GET", "/v1/sessions/{id}/motion"): "own",
            ("POST", "/v1/sessions/{id}/motion"): "open", ("GET", "/v1/sessions/{id}/fhir"): "own",
            ("POST", "/v1/sessions/{id}/poses"): "open", ("POST", "/v1/sessions/{id}/stop"): "open",
            ("POST", "/v1/analyze"): "start",
            ("GET", "/v1/subjects/{subject}/progress"): "own", ("GET", "/v1/subjects/{subject}/fhir"): "own",
            ("GET", "/v1/subjects/{subject}/adherence"): "own", ("GET", "/v1/subjects"): "own",
            ("GET", "/v1/stream"): "socket", ("GET", "/v1/sessions/{id}/watch"): "socket",
            ("GET", "/v1/echo"): "socket",
            ("GET", "/fhir/CodeSystem/exercises"): "read", ("GET", "/fhir/CodeSystem/measures"): "read",
            ("GET", "/fhir/CodeSystem/custom-exercises"): "read",
            ("GET", "/v1/programmes"): "own", ("POST", "/v1/programmes"): "forbidden",
            ("GET", "/v1/programmes/{id}"): "own", ("PUT", "/v1/programmes/{id}"): "forbidden",
            ("DELETE", "/v1/programmes/{id}"): "forbidden",
            ("POST", "/v1/subjects/{subject}/access"): "forbidden",
            ("GET", "/v1/subjects/{subject}/access"): "forbidden",
            ("DELETE", "/v1/subjects/{subject}/access/{id}"): "forbidden",
        }
        document = s.get("/openapi.json", token=CLINIC).json()
        operations = {(method.upper(), path) for path, item in document["paths"].items() for method in item
                      if method in ("get", "post", "put", "delete")}
        self.assertEqual(operations - set(rules), set(), "every route of openapi.json has a rule here")

        def fill(path, own):
            kind = "programme" if path.startswith("/v1/programmes") else "session"
            filled = path.replace("{subject}", SUBJECT if own else OTHER)
            filled = filled.replace("{version}", "1").replace("{id}/demo", "sitToStand/demo")
            if path.startswith("/v1/exercises"):
                return filled.replace("{id}", "sitToStand")
            if "/access/" in path:
                return filled.replace("{id}", self.code["id"])
            return filled.replace("{id}", ids[kind][0 if own else 1])

        for (method, path), rule in sorted(rules.items()):
            if rule == "socket" or (method, path) not in operations:
                continue
            own = s.request(method, fill(path, True), body={} if method in ("POST", "PUT") else None, token=code)
            other = s.request(method, fill(path, False), body={} if method in ("POST", "PUT") else None, token=code)
            with self.subTest(method=method, path=path, rule=rule):
                self.assertNotIn(own.status, (401, 500, 503), own)
                if rule == "forbidden":
                    self.assertEqual(own.status, 403, own)
                    self.assertEqual(other.status, 403, other)
                elif rule == "read":
                    self.assertEqual(own.status, 200, own)
                elif rule == "own":
                    self.assertEqual(own.status, 200, own)
                    if "{" in path:
                        self.assertEqual(other.status, 404, other)
                elif rule == "start":
                    self.assertEqual(own.status, 400, own)
                    self.assertIn(own.json()["error"]["code"], ("invalidMessage",), own)
                elif rule == "open":
                    self.assertEqual(other.status, 404, other)
                    self.assertNotIn(own.status, (403, 404), own)

        listed = s.get("/v1/sessions", token=code).json()["sessions"]
        self.assertTrue(listed)
        self.assertEqual({x["subject"] for x in listed}, {SUBJECT})
        self.assertEqual(s.get(f"/v1/sessions?subject={OTHER}", token=code).json()["sessions"], [])
        programmes = s.get("/v1/programmes", token=code).json()["programmes"]
        self.assertEqual([p["id"] for p in programmes], [self.programme["id"]])
        self.assertEqual(s.get(f"/v1/programmes?subject={OTHER}", token=code).json()["programmes"], [])
        self.assertEqual([x["subject"] for x in s.get("/v1/subjects", token=code).json()["subjects"]], [SUBJECT])
        self.assertEqual(s.get(f"/v1/subjects?prefix={OTHER}", token=code).json()["subjects"], [])
        self.assertEqual(s.get("/v1/sessions?subjectPrefix=x&total=true", token=code).json(),
                         {"sessions": [], "next": None, "total": 0})
        self.assertEqual(s.get(f"/v1/sessions/{UNKNOWN_ID}", token=code).status, 404)

        # A start naming an exercise, or a prescription of its own, is refused over WebSocket too.
        ws = s.ws(token=code)
        try:
            ws.send({"type": "start", "exercise": "squat"})
            self.assertEqual(ws.recv()["code"], "invalidMessage")
            ws.send({"type": "start", "programme": {"id": self.programme["id"], "item": "easy"},
                     "options": {"reps": 1}})
            self.assertEqual(ws.recv()["code"], "invalidMessage")
        finally:
            ws.close()
        with self.assertRaises(InvalidStatus) as refused_watch:
            s.ws(f"/v1/sessions/{mine_id}/watch", token=code)
        self.assertEqual(refused_watch.exception.response.status_code, 403)
        self.assertEqual(s.get("/v1/sessions", token="x" * 43).status, 401, "an unknown code is no credential")
        self.assertEqual(s.get(f"/v1/programmes/{self.programme['id']}", token=OTHER_CLINIC).status, 404)

    def test_3_revoking_a_code_closes_its_live_session_and_refuses_it(self):
        s = self.server
        made = s.post(f"/v1/subjects/{SUBJECT}/access", token=CLINIC)
        self.assertEqual(made.status, 201, made)
        fresh = made.json()
        self.assertEqual(len(fresh["code"]), 43)
        listed = s.get(f"/v1/subjects/{SUBJECT}/access", token=CLINIC).json()["codes"]
        self.assertIn(fresh["id"], [c["id"] for c in listed])
        self.assertTrue(all("code" not in c for c in listed), "listing never shows the secret")
        ws = s.ws(subprotocols=[f"bearer.{fresh['code']}"])
        try:
            ws.start(programme={"id": self.programme["id"], "item": "easy"})
            self.assertEqual(s.delete(f"/v1/subjects/{OTHER}/access/{fresh['id']}", token=CLINIC).status, 404)
            self.assertEqual(s.delete(f"/v1/subjects/{SUBJECT}/access/{fresh['id']}", token=OTHER_CLINIC).status,
                             404)
            revoked = s.delete(f"/v1/subjects/{SUBJECT}/access/{fresh['id']}", token=CLINIC)
            self.assertEqual(revoked.status, 204, revoked)
            code, _, _ = ws.close_code()
            self.assertEqual(code, 1008)
        finally:
            ws.close()
        self.assertEqual(s.get("/v1/sessions", token=fresh["code"]).status, 401)
        self.assertEqual(s.delete(f"/v1/subjects/{SUBJECT}/access/{fresh['id']}", token=CLINIC).status, 404)
        after = s.get(f"/v1/subjects/{SUBJECT}/access", token=CLINIC).json()["codes"]
        self.assertIsNotNone(next(c for c in after if c["id"] == fresh["id"])["revokedAt"])
        with self.assertRaises((InvalidStatus, ConnectionClosed, AssertionError)):
            refused = s.ws(token=fresh["code"])
            try:
                refused.start(programme={"id": self.programme["id"], "item": "easy"})
            finally:
                refused.close()
        self.assertEqual(s.post(f"/v1/subjects/{SUBJECT}/access", {"expiresInSeconds": 5}, token=CLINIC).status,
                         400)


class SQLiteProgrammeTests(ProgrammeFlow, unittest.TestCase):
    """The flow on an embedded SQLite database."""


class PostgresProgrammeTests(ProgrammeFlow, unittest.TestCase):
    """The flow on a PostgreSQL database of its own."""

    @classmethod
    def database_url(cls):
        if postgres_binaries() is None:
            raise unittest.SkipTest("PostgreSQL server binaries missing: apt install postgresql (make deps)")
        cls.pgdir = tempfile.TemporaryDirectory(prefix="motion-programmes-pg-")
        os.chmod(cls.pgdir.name, 0o755)
        cls.postgres = Postgres(os.path.join(cls.pgdir.name, "pg")).init()
        return cls.postgres.url

    @classmethod
    def stop_database(cls):
        cls.postgres.stop("immediate")
        cls.pgdir.cleanup()

    def test_4_another_node_learns_of_codes_and_revocations(self):
        """A second node on the same database takes a code made through the first within seconds, and closes the
        code's live session with 1008 when the first revokes it."""
        tokens = os.path.join(self.dir.name, "tokens")
        other = Server(database=self.postgres.url, tokens=tokens).start()
        try:
            made = self.server.post(f"/v1/subjects/{SUBJECT}/access", token=CLINIC)
            self.assertEqual(made.status, 201, made)
            fresh = made.json()
            deadline = time.monotonic() + 20
            while other.get("/v1/programmes", token=fresh["code"]).status != 200:
                self.assertLess(time.monotonic(), deadline, "the other node never took the new code")
                time.sleep(0.5)
            ws = other.ws(token=fresh["code"])
            try:
                ws.start(programme={"id": self.programme["id"], "item": "easy"})
                self.assertEqual(
                    self.server.delete(f"/v1/subjects/{SUBJECT}/access/{fresh['id']}", token=CLINIC).status, 204)
                code, _, _ = ws.close_code(timeout=20)
                self.assertEqual(code, 1008)
            finally:
                ws.close()
            self.assertEqual(other.get("/v1/programmes", token=fresh["code"]).status, 401)
        finally:
            other.cleanup()


if __name__ == "__main__":
    unittest.main()
