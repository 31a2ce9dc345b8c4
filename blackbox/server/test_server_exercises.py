"""12. Custom exercises over REST (PROTOCOL §5.1, docs/exercises.md): per tenant, every version kept, refused
definitions with the pointer of their first bad field, and live sessions started with them."""

import copy
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import (  # noqa: E402
    analyze_body, events, mc, of_type, rep_frames, Server, shared_server,
)


SERVER = None  # the shared server of this module (no tokens, no public dir)


def setUpModule():
    global SERVER
    SERVER = shared_server()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


def curl(exercise_id="customCurl", **changes):
    """A right-elbow curl of our own, measured as the pose generator's angle: reps from 20° up to 70° and back to
    40°, aiming at 110°. `changes` replace top-level members; `thresholds` entries are merged."""
    definition = {
        "id": exercise_id, "name": "Curl (custom)", "view": "sagittal", "kind": "rep",
        "measurement": {"type": "flexion", "joints": ["shoulder", "elbow", "wrist"]},
        "thresholds": {"rest": 20, "enter": 70, "exit": 40, "minAmplitude": 30},
        "target": 110,
    }
    for key, value in changes.items():
        if key == "thresholds":
            definition["thresholds"].update(value)
        else:
            definition[key] = value
    return definition


def error_of(response):
    return response.json()["error"]


class ExerciseLifecycleTests(unittest.TestCase):
    """POST, GET, PUT, DELETE and the versions of one custom exercise."""

    def test_create_list_get_update_delete(self):
        s = SERVER
        created = s.post("/v1/exercises", curl("lifecycle"))
        self.assertEqual(created.status, 201, created)
        self.assertEqual(created.headers["location"], "/v1/exercises/lifecycle")
        body = created.json()
        self.assertEqual((body["version"], body["builtin"], body["unit"]), (1, False, "degrees"))
        self.assertEqual(body["measurement"], {"type": "flexion", "joints": ["shoulder", "elbow", "wrist"]})
        self.assertEqual(body["thresholds"]["minDuration"], 0.5, "defaults are shown")
        self.assertEqual(body["smoothing"], {"minCutoff": 1.5, "beta": 0.02, "derivativeCutoff": 1.0})
        self.assertEqual((body["sidedness"], body["posture"], body["direction"]), ("oneSided", None, "rising"))
        self.assertEqual(body["joints"], ["shoulder", "elbow", "wrist"], "the v1 members are kept")

        self.assertEqual(s.get("/v1/exercises/lifecycle").json(), body)
        listed = [e["id"] for e in s.get("/v1/exercises").json()["exercises"]]
        self.assertEqual(listed[:8], ["elbowFlexion", "shoulderFlexion", "shoulderAbduction", "shoulderAbductionHold",
                                      "hipAbduction", "kneeExtension", "squat", "ankleDorsiflexion"])
        self.assertIn("lifecycle", listed[8:], "custom ones after the built-ins")

        updated = s.request("PUT", "/v1/exercises/lifecycle", curl("lifecycle", thresholds={"enter": 80}))
        self.assertEqual(updated.status, 200, updated)
        self.assertEqual(updated.json()["version"], 2)
        self.assertEqual(updated.json()["thresholds"]["enter"], 80)
        no_id = curl("lifecycle", thresholds={"enter": 80})
        del no_id["id"]
        same = s.request("PUT", "/v1/exercises/lifecycle", no_id)
        self.assertEqual(same.json()["version"], 2, "an unchanged definition makes no new version")

        v1 = s.get("/v1/exercises/lifecycle/versions/1")
        self.assertEqual(v1.status, 200, v1)
        self.assertEqual(v1.json(), body)
        self.assertEqual(s.get("/v1/exercises/lifecycle/versions/2").json(), updated.json())
        for missing in ("3", "0", "-1", "x", "99999999999"):
            self.assertEqual(s.get(f"/v1/exercises/lifecycle/versions/{missing}").status, 404, missing)

        deleted = s.delete("/v1/exercises/lifecycle")
        self.assertEqual(deleted.status, 204, deleted)
        self.assertEqual(deleted.body, b"")
        self.assertEqual(s.get("/v1/exercises/lifecycle").status, 404)
        self.assertEqual(error_of(s.get("/v1/exercises/lifecycle"))["code"], "unknownExercise")
        self.assertNotIn("lifecycle", [e["id"] for e in s.get("/v1/exercises").json()["exercises"]])
        self.assertEqual(s.get("/v1/exercises/lifecycle/versions/2").json(), updated.json(),
                         "a deleted exercise's versions stay readable")
        self.assertEqual(s.delete("/v1/exercises/lifecycle").status, 404)
        again = s.post("/v1/exercises", curl("lifecycle"))
        self.assertEqual(again.status, 201, again)
        self.assertEqual(again.json()["version"], 3, "versions number on after a delete")

    def test_what_get_shows_post_accepts(self):
        for entry in SERVER.get("/v1/exercises").json()["exercises"]:
            if not entry["builtin"]:
                continue
            with self.subTest(exercise=entry["id"]):
                mine = copy.deepcopy(entry)
                mine["id"] = "copyOf" + entry["id"][0].upper() + entry["id"][1:]
                created = SERVER.post("/v1/exercises", mine)
                self.assertEqual(created.status, 201, created)
                # The catalog's names in both languages belong to the built-in entry; a copy has its author's name.
                self.assertEqual(set(entry["names"]), {"en", "es"})
                self.assertEqual(entry["names"]["en"], entry["name"])
                expected = dict(mine, builtin=False, version=1, names={})
                self.assertEqual(created.json(), expected)
                self.assertEqual(SERVER.delete(f"/v1/exercises/{mine['id']}").status, 204)

    def test_conflicts_and_built_ins(self):
        s = SERVER
        taken = s.post("/v1/exercises", curl("squat"))
        self.assertEqual((taken.status, error_of(taken)["code"]), (409, "exerciseExists"), taken)
        self.assertEqual(s.post("/v1/exercises", curl("conflict")).status, 201)
        twice = s.post("/v1/exercises", curl("conflict", name="Other"))
        self.assertEqual((twice.status, error_of(twice)["code"]), (409, "exerciseExists"), twice)
        for method, body in (("PUT", curl("squat")), ("DELETE", None)):
            with self.subTest(method=method):
                resp = s.request(method, "/v1/exercises/squat", body)
                self.assertEqual((resp.status, error_of(resp)["code"]), (409, "builtinExercise"), resp)
        self.assertEqual(s.get("/v1/exercises/squat").json()["builtin"], True)
        self.assertEqual(s.get("/v1/exercises/squat/versions/1").json(), s.get("/v1/exercises/squat").json())
        mismatch = s.request("PUT", "/v1/exercises/conflict", curl("other"))
        self.assertEqual((mismatch.status, error_of(mismatch)["pointer"]), (422, "/id"), mismatch)
        unknown = s.request("PUT", "/v1/exercises/neverMade", curl("neverMade"))
        self.assertEqual((unknown.status, error_of(unknown)["code"]), (404, "unknownExercise"), unknown)
        self.assertEqual(s.delete("/v1/exercises/neverMade").status, 404)
        wrong_type = s.request("POST", "/v1/exercises", json.dumps(curl("texty")),
                               headers={"Content-Type": "text/plain"})
        self.assertEqual(wrong_type.status, 415, wrong_type)
        self.assertEqual(s.get("/readyz").status, 200, "refusals leave the store ready")


class BadDefinitionTests(unittest.TestCase):
    """Every refusal is a 4xx; a definition that is JSON but no exercise is 422 with a JSON Pointer (RFC 6901)."""

    def cases(self):
        def without(*path):
            definition = curl("bad")
            target = definition
            for key in path[:-1]:
                target = target[key]
            del target[path[-1]]
            return definition

        falling = curl("bad", direction="falling", thresholds={"rest": 120, "enter": 60, "exit": 90}, target=20)
        yield "unknown joint", curl("bad", measurement={"type": "flexion", "joints": ["shoulder", "wing", "wrist"]}), \
            "/measurement/joints/1"
        yield "unknown segment", curl("bad", rules=[{"fault": "keepTrunkUpright", "limit": 15,
                                                     "measurement": {"type": "inclination", "segment": "torso"}}]), \
            "/rules/0/measurement/segment"
        yield "unknown fault", curl("bad", rules=[{"fault": "keepSmiling", "limit": 15,
                                                   "measurement": {"type": "inclination", "segment": "trunk"}}]), \
            "/rules/0/fault"
        yield "unknown measurement type", curl("bad", measurement={"type": "twist", "segment": "trunk"}), \
            "/measurement/type"
        yield "rising: enter below exit", curl("bad", thresholds={"enter": 30}), "/thresholds/enter"
        yield "rising: exit below rest", curl("bad", thresholds={"exit": 10}), "/thresholds/exit"
        yield "falling: enter above exit", dict(falling, thresholds={"rest": 120, "enter": 100, "exit": 90}), \
            "/thresholds/enter"
        yield "falling: target above rest", dict(falling, target=130), "/target"
        yield "target outside the measurement's range", curl("bad", target=200), "/target"
        yield "distance target outside 0…10", curl(
            "bad", measurement={"type": "distance", "joints": ["wrist", "opposite.wrist"], "per": "shoulderLine"},
            thresholds={"rest": 0.5, "enter": 2, "exit": 1, "minAmplitude": 0.5}, target=45), "/target"
        yield "target as a string", curl("bad", target="110"), "/target"
        yield "thresholds as an array", dict(curl("bad"), thresholds=[20, 70, 40]), "/thresholds"
        yield "kind not a string", curl("bad", kind=1), "/kind"
        yield "relativeToStart not a Boolean", curl("bad", rules=[{
            "fault": "keepTrunkUpright", "limit": 15, "relativeToStart": "yes",
            "measurement": {"type": "inclination", "segment": "trunk"}}]), "/rules/0/relativeToStart"
        yield "missing target", without("target"), "/target"
        yield "missing thresholds.exit", without("thresholds", "exit"), "/thresholds/exit"
        yield "missing measurement joints", curl("bad", measurement={"type": "flexion"}), "/measurement/joints"
        yield "missing id", without("id"), "/id"
        yield "unknown member", curl("bad", colour="red"), "/colour"
        yield "unknown member needing escapes", curl("bad", **{"a/b~c": 1}), "/a~1b~0c"
        yield "unknown threshold", curl("bad", thresholds={"restt": 1}), "/thresholds/restt"
        yield "bad id", curl("not an id"), "/id"
        yield "not an object", [curl("bad")], ""

    def test_each_bad_definition_is_422_with_its_pointer(self):
        self.assertEqual(SERVER.post("/v1/exercises", curl("badPut")).status, 201)
        for name, definition, pointer in self.cases():
            for method, path in (("POST", "/v1/exercises"), ("PUT", "/v1/exercises/badPut")):
                if method == "PUT" and name == "missing id":
                    continue  # PUT takes the id from the path
                with self.subTest(case=name, method=method):
                    body = definition
                    if method == "PUT" and isinstance(body, dict) and pointer != "/id":
                        body = dict(body, id="badPut")
                    resp = SERVER.request(method, path, body)
                    self.assertEqual(resp.status, 422, resp)
                    self.assertEqual(resp.headers["content-type"], "application/json")
                    err = error_of(resp)
                    self.assertEqual(err["code"], "invalidExercise", resp)
                    self.assertEqual(err["pointer"], pointer, resp)
                    self.assertIsInstance(err["message"], str)
        self.assertEqual(SERVER.get("/v1/exercises/badPut").json()["version"], 1, "nothing was stored")
        self.assertEqual(SERVER.get("/v1/exercises/bad").status, 404)

    def test_invalid_json_is_400_and_an_oversized_body_413(self):
        good = json.dumps(curl("huge")).encode()
        for name, body, status, code in (
                ("truncated", good[:-1], 400, "invalidJSON"), ("trailing comma", b'{"id":"x",}', 400, "invalidJSON"),
                ("empty", b"", 400, "invalidJSON"), ("not UTF-8", b'{"id":"\xff"}', 400, "invalidJSON"),
                ("NaN", good.replace(b'"target": 110', b'"target": NaN'), 400, "invalidJSON"),
                ("too deep", b'{"id":' + b"[" * 50 + b"]" * 50 + b"}", 400, "invalidJSON"),
                ("over 16 KiB", good[:-1] + b" " * 16384 + b"}", 413, "messageTooBig"),
                ("1 MiB", good[:-1] + b" " * (1 << 20) + b"}", 413, "messageTooBig")):
            with self.subTest(case=name):
                resp = SERVER.request("POST", "/v1/exercises", body, headers={"Content-Type": "application/json"})
                self.assertEqual(resp.status, status, resp)
                self.assertEqual(error_of(resp)["code"], code, resp)
                self.assertNotIn("pointer", error_of(resp))
        self.assertEqual(SERVER.get("/v1/exercises/huge").status, 404)


class CustomExerciseSessionTests(unittest.TestCase):
    """A custom id in `start` works exactly like a built-in one, and a session keeps the version it started with."""

    def run_session(self, exercise_id, frames, **start):
        ws = SERVER.ws()
        try:
            started = ws.start(exercise=exercise_id, options={"snapshots": "off"}, **start)
            mc.send_frames(ws, frames)
            ws.send({"type": "stop"})
            code, _, msgs = ws.close_code(timeout=15)
            self.assertEqual(code, 1000)
            self.assertEqual(of_type(msgs, "error"), [])
            summary = of_type(msgs, "summary")[0]
            return started, events(msgs, "repCompleted"), summary
        finally:
            ws.close()

    def test_live_session_counts_reps_of_a_custom_exercise(self):
        created = SERVER.post("/v1/exercises", curl("liveCurl"))
        self.assertEqual(created.status, 201, created)
        started, reps, summary = self.run_session("liveCurl", rep_frames(3, peak=100.0), side="right",
                                                  subject="custom-live")
        self.assertEqual(started["exercise"], created.json(), "started shows the whole definition")
        self.assertEqual(started["exercise"]["version"], 1)
        self.assertEqual(len(reps), 3, mc.summarise(reps))
        for rep in reps:
            self.assertAlmostEqual(rep["rep"]["peak"], 100.0, delta=3)
        self.assertEqual(summary["repCount"], 3)
        stored = SERVER.wait_for_session(summary["id"], lambda j: j["status"] == "finished")
        self.assertEqual(stored.json()["exercise"], "liveCurl")
        self.assertEqual(stored.json()["repCount"], 3)

        # Version 2 needs 105°: the same reps to 100° no longer count; version 1 stays readable for the first.
        v2 = SERVER.request("PUT", "/v1/exercises/liveCurl", curl("liveCurl", thresholds={"enter": 105}))
        self.assertEqual(v2.json()["version"], 2)
        started, reps, summary = self.run_session("liveCurl", rep_frames(3, peak=100.0), side="right")
        self.assertEqual(started["exercise"]["version"], 2)
        self.assertEqual(started["exercise"]["thresholds"]["enter"], 105)
        self.assertEqual((len(reps), summary["repCount"]), (0, 0))
        self.assertEqual(SERVER.get("/v1/exercises/liveCurl/versions/1").json()["thresholds"]["enter"], 70)

    def test_a_session_keeps_its_definition_when_the_exercise_changes_or_goes(self):
        self.assertEqual(SERVER.post("/v1/exercises", curl("midSession")).status, 201)
        ws = SERVER.ws()
        try:
            started = ws.start(exercise="midSession", side="right", options={"snapshots": "off"})
            self.assertEqual(started["exercise"]["version"], 1)
            strict = SERVER.request("PUT", "/v1/exercises/midSession", curl("midSession", thresholds={"enter": 105}))
            self.assertEqual(strict.json()["version"], 2)
            self.assertEqual(SERVER.delete("/v1/exercises/midSession").status, 204)
            mc.send_frames(ws, rep_frames(2, peak=100.0))
            ws.send({"type": "stop"})
            code, _, msgs = ws.close_code(timeout=15)
            self.assertEqual(code, 1000)
            self.assertEqual(len(events(msgs, "repCompleted")), 2, "counted by version 1, which it started with")
        finally:
            ws.close()
        ws = SERVER.ws()
        try:
            ws.send({"type": "start", "exercise": "midSession", "side": "right"})
            self.assertEqual(ws.recv()["code"], "unknownExercise", "a deleted exercise starts no new session")
        finally:
            ws.close()

    def test_a_falling_custom_exercise_counts_reps_going_down(self):
        lowering = curl("lowering", direction="falling", thresholds={"rest": 110, "enter": 50, "exit": 80,
                                                                     "minAmplitude": 30}, target=20)
        created = SERVER.post("/v1/exercises", lowering)
        self.assertEqual(created.status, 201, created)
        frames = rep_frames(3, peak=30.0, rest=120.0)
        _, reps, summary = self.run_session("lowering", frames, side="right")
        self.assertEqual(len(reps), 3, mc.summarise(reps))
        for rep in reps:
            self.assertAlmostEqual(rep["rep"]["peak"], 30.0, delta=3, msg="a falling rep's peak is its lowest value")
        self.assertEqual(summary["repCount"], 3)

    def test_http_sessions_and_analysis_take_a_custom_id(self):
        self.assertEqual(SERVER.post("/v1/exercises", curl("restCurl")).status, 201)
        analysis = SERVER.post("/v1/analyze", analyze_body("custom-analyze", exercise="restCurl",
                                                           frames=rep_frames(2, peak=100.0)))
        self.assertEqual(analysis.status, 200, analysis)
        self.assertEqual(analysis.json()["summary"]["repCount"], 2)
        created = SERVER.post("/v1/sessions", {"exercise": "restCurl", "side": "right"})
        self.assertEqual(created.status, 201, created)
        sid = created.json()["id"]
        posted = SERVER.post(f"/v1/sessions/{sid}/poses", {"frames": rep_frames(1, peak=100.0)})
        self.assertEqual(posted.status, 200, posted)
        self.assertEqual(len([e for e in posted.json()["events"] if e["event"] == "repCompleted"]), 1)
        self.assertEqual(SERVER.post(f"/v1/sessions/{sid}/stop").json()["repCount"], 1)


TOKEN_A = "exercisesA-0123456789abcdef"
TOKEN_B = "exercisesB-0123456789abcdef"
TOKEN_C = "exercisesC-0123456789abcdef"


class TenantTests(unittest.TestCase):
    """A tenant's exercises are its own: invisible to others (404, like unknown ones), ids per tenant; and a
    per-tenant limit. A server of its own, with tokens and --max-exercises-per-tenant 3."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="motion-exercises-")
        tokens = os.path.join(cls.dir.name, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{TOKEN_A} clinicA\n{TOKEN_B} clinicB\n{TOKEN_C} clinicC\n")
        cls.database = os.path.join(cls.dir.name, "motion.sqlite")
        cls.tokens = tokens
        cls.server = Server(tokens=tokens, database=cls.database, extra=["--max-exercises-per-tenant", "3"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def test_tenants_are_isolated(self):
        s = self.server
        self.assertEqual(s.post("/v1/exercises", curl("privateCurl"), token=TOKEN_A).status, 201)
        self.assertEqual(s.get("/v1/exercises/privateCurl", token=TOKEN_A).status, 200)
        for method, path, body in (("GET", "/v1/exercises/privateCurl", None),
                                   ("GET", "/v1/exercises/privateCurl/versions/1", None),
                                   ("PUT", "/v1/exercises/privateCurl", curl("privateCurl")),
                                   ("DELETE", "/v1/exercises/privateCurl", None)):
            with self.subTest(method=method, path=path):
                theirs = s.request(method, path, body, token=TOKEN_B)
                self.assertEqual(theirs.status, 404, theirs)
                unknown = s.request(method, path.replace("privateCurl", "nobodysCurl"),
                                    curl("nobodysCurl") if body else None, token=TOKEN_B)
                self.assertEqual(theirs.body, unknown.body.replace(b"nobodysCurl", b"privateCurl"),
                                 "another tenant's exercise answers exactly as an unknown one")
        ids_b = [e["id"] for e in s.get("/v1/exercises", token=TOKEN_B).json()["exercises"]]
        self.assertNotIn("privateCurl", ids_b)
        self.assertIn("privateCurl", [e["id"] for e in s.get("/v1/exercises", token=TOKEN_A).json()["exercises"]])

        ws = s.ws(token=TOKEN_B)
        try:
            ws.send({"type": "start", "exercise": "privateCurl", "side": "right"})
            self.assertEqual(ws.recv()["code"], "unknownExercise")
        finally:
            ws.close()
        refused = s.post("/v1/analyze", analyze_body("b", exercise="privateCurl"), token=TOKEN_B)
        self.assertEqual((refused.status, error_of(refused)["code"]), (400, "unknownExercise"), refused)

        own = s.post("/v1/exercises", curl("privateCurl", thresholds={"enter": 90}), token=TOKEN_B)
        self.assertEqual(own.status, 201, "the same id in another tenant is another exercise")
        self.assertEqual(s.get("/v1/exercises/privateCurl", token=TOKEN_A).json()["thresholds"]["enter"], 70)
        ws = s.ws(token=TOKEN_A)
        try:
            started = ws.start(exercise="privateCurl", side="right")
            self.assertEqual(started["exercise"]["thresholds"]["enter"], 70)
        finally:
            ws.close()
        self.assertEqual(s.get("/v1/exercises/privateCurl").status, 401, "no token, no exercises")

    def test_the_per_tenant_limit_and_a_restart(self):
        s = self.server
        for i in range(3):
            self.assertEqual(s.post("/v1/exercises", curl(f"limit{i}"), token=TOKEN_C).status, 201)
        full = s.post("/v1/exercises", curl("limit3"), token=TOKEN_C)
        self.assertEqual((full.status, error_of(full)["code"]), (409, "tooManyExercises"), full)
        self.assertEqual(s.delete("/v1/exercises/limit0", token=TOKEN_C).status, 204)
        self.assertEqual(s.post("/v1/exercises", curl("limit3"), token=TOKEN_C).status, 201,
                         "a deleted exercise frees its place")
        self.assertEqual(s.request("PUT", "/v1/exercises/limit3", curl("limit3", target=100),
                                   token=TOKEN_C).json()["version"], 2)

        # Another server on the same database finds every tenant's exercises and versions.
        self.__class__.server.cleanup()
        self.__class__.server = Server(tokens=self.tokens, database=self.database,
                                       extra=["--max-exercises-per-tenant", "3"]).start()
        s = self.server
        self.assertEqual(s.get("/v1/exercises/limit3", token=TOKEN_C).json()["version"], 2)
        self.assertEqual(s.get("/v1/exercises/limit3/versions/1", token=TOKEN_C).json()["target"], 110)
        self.assertEqual(s.get("/v1/exercises/limit0", token=TOKEN_C).status, 404)
        self.assertEqual(s.get("/v1/exercises/limit0/versions/1", token=TOKEN_C).status, 200)
        ws = s.ws(token=TOKEN_C)
        try:
            self.assertEqual(ws.start(exercise="limit3", side="right")["exercise"]["version"], 2)
        finally:
            ws.close()


if __name__ == "__main__":
    unittest.main()
