"""FHIR R4 export (docs/fhir.md, docs/protocol.md §5.5): every Bundle and CodeSystem the server gives validates
against the FHIR models of the PyPI package fhir.resources (its R4B module), and says what the session's summary says.

The sessions are the simulation's scenarios of every catalog exercise (`motion-demo --scenarios`: clean on each
side, every fault, the wrong posture and the wrong view; alternating sides and holds where the exercise has them) and
the server's own demonstration of each (`GET /v1/exercises/{id}/demo`: six reps, two with a fault, holds kept a second
past their time), posted to `POST /v1/analyze` (finished), replayed half-way into HTTP sessions (live, then stopped),
and one WebSocket session dropped for good (abandoned). Both endpoints are read in both variants (`collection`,
`transaction`), the subject's pages followed by their `next` links.

fhir.resources checks structure and types, not every FHIR rule, so the checks here add what it leaves out: no empty
arrays, strings or nulls; the status binding; a value or a dataAbsentReason in each component, never both; UCUM
units; every code in the CodeSystem the server serves for it.

Run: swift build --build-tests (or --product motion-server --product motion-demo), then
     .venv/bin/python -m unittest discover -s blackbox/server -p 'test_server_fhir.py'
$MOTION_SERVER and $MOTION_DEMO override the binaries.
"""

import collections
import json
import os
import subprocess
import sys
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import mc, UNKNOWN_ID  # noqa: E402

try:
    from fhir.resources.R4B.bundle import Bundle
    from fhir.resources.R4B.codesystem import CodeSystem
except ImportError:
    raise ImportError("the Python package 'fhir.resources' is missing; `make deps` installs it into .venv "
                      "(run the suite with .venv/bin/python)") from None

DEMO = os.environ.get("MOTION_DEMO", os.path.join(mc.ROOT, ".build", "debug", "motion-demo"))
TOKEN_A = "fhir-token-aaaaaaaa1"
TOKEN_B = "fhir-token-bbbbbbbb2"
SUBJECT_SYSTEM = "https://records.example/{tenant}/patients"
UCUM = "http://unitsofmeasure.org"
PROGRAMME_SYSTEM = "urn:uuid:ab3d5fd5-6c66-46e3-86b8-271cfa2e8040"
UNIT_TOLERANCE = {"deg": 0.05 + 1e-9, "1": 0.0005 + 1e-12, "s": 0.005 + 1e-9}

SERVER = None
SCENARIOS = []  # every scenario of motion-demo --scenarios, then the server's demo of every built-in exercise
FINISHED = []   # (scenario, stored summary) of every analysed scenario
CODES = {}      # the served CodeSystems: "exercises", "measures" -> parsed JSON


def validated(document, model):
    """Parses a FHIR resource with a fhir.resources model (pydantic 2's model_validate; parse_obj before)."""
    parse = getattr(model, "model_validate", None) or model.parse_obj
    return parse(document)


def subject_of(exercise):
    return f"fhir {exercise}"


def start_of(scenario, subject):
    start = {"exercise": scenario["exercise"], "subject": subject, "mirrored": scenario["mirrored"]}
    if scenario["side"]:
        start["side"] = scenario["side"]
    return start


def analyze(scenario, subject, token=TOKEN_A):
    """The stored summary of a scenario posted to /v1/analyze."""
    response = SERVER.post("/v1/analyze", dict(start_of(scenario, subject), frames=scenario["frames"]), token=token,
                           timeout=60)
    if response.status != 200:
        raise AssertionError(f"{scenario['name']}: analyze answered {response.status} {response.body[:300]!r}")
    return response.json()["summary"]


def record(scenario, subject, token=TOKEN_A):
    """The stored summary of a scenario: posted to /v1/analyze, or, for the server's demos (longer than the 1,000
    frames a request carries), streamed into an HTTP session a batch at a time and stopped."""
    if not scenario.get("demo"):
        return analyze(scenario, subject, token)
    created = SERVER.post("/v1/sessions", start_of(scenario, subject), token=token)
    if created.status != 201:
        raise AssertionError(f"{scenario['name']}: POST /v1/sessions answered {created.status} {created.body!r}")
    sid = created.json()["id"]
    frames = scenario["frames"]
    for first in range(0, len(frames), 1000):
        posted = SERVER.post(f"/v1/sessions/{sid}/poses", {"frames": frames[first:first + 1000]}, token=token,
                             timeout=60)
        if posted.status != 200:
            raise AssertionError(f"{scenario['name']}: poses answered {posted.status} {posted.body[:300]!r}")
    stopped = SERVER.post(f"/v1/sessions/{sid}/stop", token=token, timeout=60)
    if stopped.status != 200:
        raise AssertionError(f"{scenario['name']}: stop answered {stopped.status} {stopped.body[:300]!r}")
    return stopped.json()


def setUpModule():
    global SERVER, SCENARIOS, FINISHED
    if not os.access(DEMO, os.X_OK):
        raise RuntimeError(f"motion-demo missing at {DEMO}: swift build --product motion-demo (or set MOTION_DEMO)")
    started = time.monotonic()
    demo = subprocess.run([DEMO, "--scenarios"], capture_output=True, text=True, timeout=300)
    if demo.returncode != 0:
        raise RuntimeError(f"motion-demo --scenarios failed: {demo.stderr}")
    SCENARIOS = [json.loads(line) for line in demo.stdout.splitlines() if line.strip()]
    server = mc.Server(extra=["--resume-seconds", "0", "--fhir-subject-system", SUBJECT_SYSTEM])
    tokens = os.path.join(server.tmp.name, "tokens")
    with open(tokens, "w") as f:
        f.write(f"{TOKEN_A} clinic-a\n{TOKEN_B} clinic-b\n")
    server.tokens = tokens
    SERVER = server.start()
    for name in ("exercises", "measures"):
        CODES[name] = SERVER.get(f"/fhir/CodeSystem/{name}").json()
    # The server's own simulated person (docs/protocol.md §5.1, demo) acting out each built-in exercise.
    for exercise in SERVER.get("/v1/exercises", token=TOKEN_A).json()["exercises"]:
        demo = SERVER.get(f"/v1/exercises/{exercise['id']}/demo", token=TOKEN_A, timeout=30)
        if demo.status != 200:
            raise RuntimeError(f"GET /v1/exercises/{exercise['id']}/demo answered {demo.status}")
        performance = demo.json()
        SCENARIOS.append({"name": f"{exercise['id']}: the server's demo", "exercise": exercise["id"],
                          "side": performance["side"] if exercise["sidedness"] == "oneSided" else None,
                          "mirrored": False, "demo": True, "frames": performance["frames"]})
    # Two requests at a time: the server's two loops stay busy while this process encodes the next body.
    with ThreadPoolExecutor(max_workers=2) as pool:
        summaries = pool.map(lambda s: record(s, subject_of(s["exercise"])), SCENARIOS)
        FINISHED = list(zip(SCENARIOS, summaries))
    print(f"\n[test_server_fhir] {len(SCENARIOS)} sessions recorded in {time.monotonic() - started:.1f} s",
          file=sys.stderr)


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


def concepts(name):
    return {c["code"]: c for c in CODES[name]["concept"]}


def subject_system(tenant):
    return SUBJECT_SYSTEM.replace("{tenant}", tenant)


class FHIRChecks(unittest.TestCase):
    """What every Bundle and Observation must be, beyond what fhir.resources checks."""

    def assertNoEmptyValues(self, value, path="$"):
        """FHIR JSON has no empty arrays or objects, no empty strings and no nulls."""
        self.assertIsNotNone(value, f"{path} is null")
        if isinstance(value, dict):
            self.assertTrue(value, f"{path} is an empty object")
            for key, item in value.items():
                self.assertNoEmptyValues(item, f"{path}.{key}")
        elif isinstance(value, list):
            self.assertTrue(value, f"{path} is an empty array")
            for index, item in enumerate(value):
                self.assertNoEmptyValues(item, f"{path}[{index}]")
        elif isinstance(value, str):
            self.assertTrue(value, f"{path} is an empty string")

    def check_bundle(self, response, kind):
        """The parsed Bundle of an answer, validated; its Observations by session id."""
        self.assertEqual(response.status, 200, response)
        self.assertEqual(response.headers.get("content-type"), "application/fhir+json")
        bundle = response.json()
        validated(bundle, Bundle)
        self.assertNoEmptyValues(bundle)
        self.assertEqual(bundle["resourceType"], "Bundle")
        self.assertEqual(bundle["type"], kind)
        self.assertNotIn("total", bundle, "bdl-1: total only in a search or history")
        self.assertEqual(bundle["link"][0]["relation"], "self")
        self.assertLessEqual({link["relation"] for link in bundle["link"]}, {"self", "next"})
        entries = bundle.get("entry", [])
        full_urls = [entry["fullUrl"] for entry in entries]
        self.assertEqual(len(set(full_urls)), len(full_urls), "fullUrls are unique")
        observations = {}
        for entry in entries:
            self.assertRegex(entry["fullUrl"], r"^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                               r"[0-9a-f]{12}$")
            resource = entry["resource"]
            self.assertEqual(resource["resourceType"], "Observation")
            identifier = resource["identifier"][0]
            self.assertRegex(identifier["system"], r"^urn:uuid:")
            observations[identifier["value"]] = resource
            if kind == "transaction":
                self.assertNotIn("id", resource, "a create carries no id")
                request = entry["request"]
                self.assertEqual((request["method"], request["url"]), ("POST", "Observation"))
                self.assertEqual(request["ifNoneExist"],
                                 f"identifier={identifier['system']}|{identifier['value']}&status={resource['status']}")
            else:
                self.assertEqual(resource["id"], identifier["value"])
                self.assertNotIn("request", entry)
        return bundle, observations

    def check_observation(self, observation, summary, tenant="clinic-a", coding_system=None):
        """The Observation says what the session's stored summary says."""
        name = f"{summary['exercise']} {summary['id']}"
        live = summary["status"] == "live"
        self.assertEqual(observation["status"], "preliminary" if live else "final", name)
        category = observation["category"][0]["coding"][0]
        self.assertEqual((category["system"], category["code"]),
                         ("http://terminology.hl7.org/CodeSystem/observation-category", "exam"))
        coding = observation["code"]["coding"][0]
        self.assertEqual(coding["code"], summary["exercise"])
        exercise = concepts("exercises").get(summary["exercise"])
        if coding_system is None:
            self.assertEqual(coding["system"], CODES["exercises"]["url"], name)
            self.assertEqual(coding["display"], exercise["display"])
        else:
            self.assertEqual(coding["system"], coding_system, name)
        if summary["subject"]:
            self.assertEqual(observation["subject"]["identifier"],
                             {"system": subject_system(tenant), "value": summary["subject"]})
        else:
            self.assertNotIn("subject", observation)
        period = observation["effectivePeriod"]
        self.assertEqual(period["start"], summary["startedAt"])
        self.assertEqual(period.get("end"), summary["endedAt"])
        self.assertEqual(observation.get("issued"), summary["endedAt"])
        self.assertEqual("note" in observation, summary["status"] == "abandoned", name)
        link = summary.get("programme")
        if link:
            # docs/fhir.md: a logical reference to the programme as a CarePlan, by identifier.
            self.assertEqual(observation["basedOn"], [{
                "type": "CarePlan", "identifier": {"system": PROGRAMME_SYSTEM, "value": link["id"]},
                "display": f"Programme version {link['version']}, item {link['item']}"}], name)
        else:
            self.assertNotIn("basedOn", observation, name)
        self.assertRegex(observation["device"]["display"], r"^motion-server \d+\.\d+\.\d+$")

        measures = concepts("measures")
        components = {}
        for component in observation["component"]:
            codings = component["code"]["coding"]
            self.assertEqual(codings[0]["system"], CODES["measures"]["url"])
            code = codings[0]["code"]
            self.assertIn(code, measures)
            self.assertEqual(codings[0]["display"], measures[code]["display"])
            self.assertNotIn(code, components, f"{name}: {code} once")
            if len(codings) > 1:
                self.assertEqual((code, codings[1]["system"], codings[1]["code"]),
                                 ("duration", "http://loinc.org", "55411-3"))
            values = [key for key in component if key.startswith("value")]
            self.assertEqual(len(values) + ("dataAbsentReason" in component), 1,
                             f"{name}: {code} has a value or a reason, not both")
            if "dataAbsentReason" in component:
                reason = component["dataAbsentReason"]["coding"][0]
                self.assertEqual(reason["system"], "http://terminology.hl7.org/CodeSystem/data-absent-reason")
                self.assertEqual(reason["code"], "temp-unknown" if live else "not-applicable")
            if "valueQuantity" in component:
                quantity = component["valueQuantity"]
                self.assertEqual(quantity["system"], UCUM)
                self.assertIn(quantity["code"], ("deg", "1", "s", "{reps}"))
            components[code] = component

        def value(code):
            quantity = components[code].get("valueQuantity")
            return None if quantity is None else quantity["value"]

        def close(code, expected, unit):
            quantity = components[code].get("valueQuantity")
            if expected is None:
                self.assertIsNone(quantity, f"{name}: {code}")
                return
            self.assertEqual(quantity["code"], unit, f"{name}: {code}")
            self.assertAlmostEqual(quantity["value"], expected, delta=UNIT_TOLERANCE[unit], msg=f"{name}: {code}")

        unit = next(p["valueCode"] for p in exercise["property"] if p["code"] == "unit") if exercise else None
        self.assertEqual(value("cleanReps"), summary["repCount"], name)
        self.assertEqual(value("rejectedReps"), summary["rejectedCount"], name)
        self.assertEqual(components["cleanReps"]["valueQuantity"]["code"], "{reps}")
        close("best", summary["best"], unit)
        clean_peaks = [rep["peak"] for rep in summary["reps"] if rep["clean"]]
        close("meanPeak", sum(clean_peaks) / len(clean_peaks) if clean_peaks else None, unit)
        close("duration", summary["duration"] if summary["frames"] else None, "s")
        if summary["side"]:
            side = components["side"]["valueCodeableConcept"]["coding"][0]
            self.assertEqual((side["system"], side["code"]), (CODES["measures"]["url"], summary["side"]))
        else:
            self.assertNotIn("side", components)
        per_side = summary.get("perSide")
        for side in ("left", "right"):
            if per_side:
                self.assertEqual(value(f"{side}CleanReps"), per_side[side]["repCount"], name)
                self.assertEqual(value(f"{side}RejectedReps"), per_side[side]["rejectedCount"], name)
                close(f"{side}Best", per_side[side]["best"], unit)
            else:
                self.assertNotIn(f"{side}CleanReps", components)
        kind = next(p["valueCode"] for p in exercise["property"] if p["code"] == "kind") if exercise else None
        if kind == "hold":
            # docs/protocol.md §5.4: the attempts that ended, each timed past its holdSeconds while it lasted.
            close("heldTime", sum(hold["held"] for hold in summary["holds"]), "s")
            close("longestHold", summary["bestHold"], "s")
        else:
            self.assertNotIn("heldTime", components, name)
            self.assertNotIn("longestHold", components, name)
        return components


class CodeSystemTests(FHIRChecks):
    def test_the_code_systems_validate_and_list_the_catalog(self):
        exercises = SERVER.get("/fhir/CodeSystem/exercises")  # no token: public
        self.assertEqual(exercises.status, 200, exercises)
        self.assertEqual(exercises.headers.get("content-type"), "application/fhir+json")
        for name in ("exercises", "measures"):
            validated(CODES[name], CodeSystem)
            self.assertNoEmptyValues(CODES[name])
            self.assertEqual(CODES[name]["count"], len(CODES[name]["concept"]))
        catalog = SERVER.get("/v1/exercises", token=TOKEN_A).json()["exercises"]
        builtins = [e for e in catalog if e["builtin"]]
        self.assertEqual([c["code"] for c in CODES["exercises"]["concept"]], [e["id"] for e in builtins])
        for concept, exercise in zip(CODES["exercises"]["concept"], builtins):
            self.assertEqual(concept["display"], exercise["name"])
            languages = {d["language"]: d["value"] for d in concept["designation"]}
            self.assertEqual(set(languages), {"en", "es"}, exercise["id"])
            self.assertEqual(languages["en"], exercise["name"])
            properties = {p["code"]: p["valueCode"] for p in concept["property"]}
            self.assertEqual(properties, {"unit": "deg" if exercise["unit"] == "degrees" else "1",
                                          "kind": exercise["kind"]})
        self.assertEqual(SERVER.get("/fhir/CodeSystem/custom-exercises").status, 401)

    def test_every_catalog_exercise_was_exported(self):
        codes = {c["code"] for c in CODES["exercises"]["concept"]}
        self.assertEqual({s["exercise"] for s in SCENARIOS if not s.get("demo")}, codes)
        self.assertEqual({s["exercise"] for s in SCENARIOS if s.get("demo")}, codes)
        kinds = collections.Counter()
        for scenario, summary in FINISHED:
            if not scenario.get("demo"):
                self.assertEqual(summary["repCount"], scenario["expectedClean"], scenario["name"])
                self.assertEqual(summary["rejectedCount"], scenario["expectedRejected"], scenario["name"])
            kinds["faults"] += summary["rejectedCount"] > 0
            kinds["alternating"] += summary["perSide"] is not None
            kinds["holds"] += concepts("exercises")[summary["exercise"]]["property"][1]["valueCode"] == "hold"
            kinds["held time"] += bool(summary["holds"]) and summary["bestHold"] > 0
            kinds["segment lengths"] += concepts("exercises")[summary["exercise"]]["property"][0]["valueCode"] == "1"
        for kind in ("faults", "alternating", "holds", "held time", "segment lengths"):
            self.assertGreater(kinds[kind], 0, f"the scenarios include {kind}")


class SessionBundleTests(FHIRChecks):
    def test_a_hold_kept_past_its_time_reads_longer_than_the_time(self):
        definitions = {e["id"]: e for e in SERVER.get("/v1/exercises", token=TOKEN_A).json()["exercises"]}
        demos = [(s, summary) for s, summary in FINISHED if s.get("demo")]
        holds = [(s, summary) for s, summary in demos if definitions[s["exercise"]]["kind"] == "hold"]
        self.assertEqual(len(holds), 4, [s["name"] for s, _ in holds])
        for scenario, summary in holds:
            _, observations = self.check_bundle(SERVER.get(f"/v1/sessions/{summary['id']}/fhir", token=TOKEN_A),
                                                "collection")
            components = self.check_observation(observations[summary["id"]], summary)
            prescribed = definitions[scenario["exercise"]]["thresholds"]["holdSeconds"]
            longest = components["longestHold"]["valueQuantity"]["value"]
            self.assertGreater(longest, prescribed, f"{scenario['name']}: kept a second past {prescribed} s")
            self.assertGreaterEqual(components["heldTime"]["valueQuantity"]["value"], longest)
            self.assertGreater(summary["rejectedCount"] + summary["repCount"], 0, scenario["name"])

    def test_every_finished_session_in_both_variants(self):
        for scenario, summary in FINISHED:
            for kind in ("collection", "transaction"):
                query = "?type=transaction" if kind == "transaction" else ""
                response = SERVER.get(f"/v1/sessions/{summary['id']}/fhir{query}", token=TOKEN_A)
                bundle, observations = self.check_bundle(response, kind)
                self.assertEqual(list(observations), [summary["id"]], scenario["name"])
                self.assertEqual(bundle["link"], [{"relation": "self",
                                                   "url": f"/v1/sessions/{summary['id']}/fhir{query}"}])
                self.check_observation(observations[summary["id"]], summary)

    def test_a_programme_items_session_is_based_on_its_care_plan(self):
        body = {"subject": "fhir-programme-1", "title": "Knee", "startsOn": "2026-12-07",
                "items": [{"item": "sts-1", "exercise": "sitToStand", "prescription": {"reps": 2, "sets": 2}}]}
        created = SERVER.post("/v1/programmes", body, token=TOKEN_A)
        self.assertEqual(created.status, 201, created)
        programme = created.json()
        scenario = next(s for s, _ in FINISHED if s.get("demo") and s["exercise"] == "sitToStand")
        sid = SERVER.post("/v1/sessions", {"programme": {"id": programme["id"], "item": "sts-1"}}, token=TOKEN_A)
        self.assertEqual(sid.status, 201, sid)
        sid = sid.json()["id"]
        for first in range(0, len(scenario["frames"]), 1000):
            posted = SERVER.post(f"/v1/sessions/{sid}/poses", {"frames": scenario["frames"][first:first + 1000]},
                                 token=TOKEN_A, timeout=60)
            self.assertEqual(posted.status, 200, posted)
        live = SERVER.get(f"/v1/sessions/{sid}/fhir", token=TOKEN_A)
        _, observations = self.check_bundle(live, "collection")
        self.assertEqual(observations[sid]["basedOn"][0]["identifier"]["value"], programme["id"], "while live too")
        summary = SERVER.post(f"/v1/sessions/{sid}/stop", token=TOKEN_A, timeout=60).json()
        self.assertEqual(summary["programme"], {"id": programme["id"], "version": 1, "item": "sts-1"})
        for kind in ("collection", "transaction"):
            query = "?type=transaction" if kind == "transaction" else ""
            _, observations = self.check_bundle(SERVER.get(f"/v1/sessions/{sid}/fhir{query}", token=TOKEN_A), kind)
            self.check_observation(observations[sid], summary)
        # The subject's Bundle says it too.
        _, observations = self.check_bundle(SERVER.get("/v1/subjects/fhir-programme-1/fhir", token=TOKEN_A),
                                            "collection")
        self.assertEqual(observations[sid]["basedOn"][0]["display"], "Programme version 1, item sts-1")

    def test_live_sessions_are_preliminary_then_final(self):
        clean = {}
        for scenario in SCENARIOS:
            clean.setdefault(scenario["exercise"], scenario)
        live = []
        for exercise, scenario in clean.items():
            start = {"exercise": exercise, "subject": "fhir live", "mirrored": scenario["mirrored"]}
            if scenario["side"]:
                start["side"] = scenario["side"]
            created = SERVER.post("/v1/sessions", start, token=TOKEN_A)
            self.assertEqual(created.status, 201, created)
            sid = created.json()["id"]
            half = scenario["frames"][: len(scenario["frames"]) // 2]
            posted = SERVER.post(f"/v1/sessions/{sid}/poses", {"frames": half}, token=TOKEN_A, timeout=30)
            self.assertEqual(posted.status, 200, posted)
            live.append((scenario, sid))
        for scenario, sid in live:
            summary = SERVER.get(f"/v1/sessions/{sid}", token=TOKEN_A).json()
            self.assertEqual(summary["status"], "live")
            _, observations = self.check_bundle(SERVER.get(f"/v1/sessions/{sid}/fhir", token=TOKEN_A), "collection")
            again = SERVER.get(f"/v1/sessions/{sid}", token=TOKEN_A).json()
            observation = observations[sid]
            self.assertEqual(observation["status"], "preliminary", scenario["name"])
            self.assertNotIn("end", observation["effectivePeriod"])
            if again == summary:  # no checkpoint stored between the two reads
                self.check_observation(observation, summary)
            self.check_bundle(SERVER.get(f"/v1/sessions/{sid}/fhir?type=transaction", token=TOKEN_A), "transaction")
        _, listed = self.check_bundle(SERVER.get("/v1/subjects/fhir%20live/fhir?limit=500", token=TOKEN_A),
                                      "collection")
        self.assertEqual({o["status"] for o in listed.values()}, {"preliminary"})
        self.assertEqual(set(listed), {sid for _, sid in live})
        for scenario, sid in live:
            stopped = SERVER.post(f"/v1/sessions/{sid}/stop", token=TOKEN_A)
            self.assertEqual(stopped.status, 200, stopped)
            _, observations = self.check_bundle(SERVER.get(f"/v1/sessions/{sid}/fhir", token=TOKEN_A), "collection")
            self.check_observation(observations[sid], stopped.json())

    def test_a_dropped_websocket_session_is_final_with_a_note(self):
        scenario = next(s for s in SCENARIOS if s["exercise"] == "squat")
        ws = SERVER.ws(token=TOKEN_A)
        try:
            sid = ws.start(exercise="squat", subject="fhir dropped", options={"snapshots": "off"})["session"]
            _, observations = self.check_bundle(SERVER.get(f"/v1/sessions/{sid}/fhir", token=TOKEN_A), "collection")
            self.assertEqual(observations[sid]["status"], "preliminary")
            ws.send({"type": "poses", "frames": scenario["frames"][:200]})
            ws.drain(quiet=0.3)
        finally:
            ws.abort()
        stored = SERVER.wait_for_session(sid, lambda s: s["status"] == "abandoned", token=TOKEN_A, timeout=10)
        self.assertEqual(stored.json()["status"], "abandoned", stored)
        _, observations = self.check_bundle(SERVER.get(f"/v1/sessions/{sid}/fhir", token=TOKEN_A), "collection")
        observation = self.check_observation(observations[sid], stored.json())
        self.assertIsNotNone(observation)
        self.assertEqual(observations[sid]["status"], "final")

    def test_a_custom_exercise_is_coded_in_the_tenants_system(self):
        definition = SERVER.get("/v1/exercises/elbowFlexion", token=TOKEN_A).json()
        definition.update({"id": "fhirTowelCurl", "name": "Towel curl"})
        for key in ("builtin", "version"):
            definition.pop(key, None)
        created = SERVER.post("/v1/exercises", definition, token=TOKEN_A)
        self.assertEqual(created.status, 201, created)
        system = SERVER.get("/fhir/CodeSystem/custom-exercises", token=TOKEN_A).json()
        validated(system, CodeSystem)
        self.assertNoEmptyValues(system)
        self.assertIn("fhirTowelCurl", [c["code"] for c in system["concept"]])
        self.assertNotIn(system["url"], (CODES["exercises"]["url"], CODES["measures"]["url"]))
        other = SERVER.get("/fhir/CodeSystem/custom-exercises", token=TOKEN_B).json()
        validated(other, CodeSystem)
        self.assertNotEqual(other["url"], system["url"], "each tenant has a system of its own")
        self.assertNotIn("concept", other)
        scenario = next(s for s in SCENARIOS if s["exercise"] == "elbowFlexion")
        summary = analyze({**scenario, "exercise": "fhirTowelCurl"}, "fhir custom")
        _, observations = self.check_bundle(SERVER.get(f"/v1/sessions/{summary['id']}/fhir", token=TOKEN_A),
                                            "collection")
        observation = observations[summary["id"]]
        coding = observation["code"]["coding"][0]
        self.assertEqual((coding["system"], coding["code"], coding["display"]),
                         (system["url"], "fhirTowelCurl", "Towel curl"))
        best = next(c for c in observation["component"] if c["code"]["coding"][0]["code"] == "best")
        self.assertEqual(best["valueQuantity"]["code"], "deg")
        self.assertAlmostEqual(best["valueQuantity"]["value"], summary["best"], delta=0.05 + 1e-9)

    def test_tenancy(self):
        summary = FINISHED[0][1]
        path = f"/v1/sessions/{summary['id']}/fhir"
        theirs = SERVER.get(path, token=TOKEN_B)
        unknown = SERVER.get(f"/v1/sessions/{UNKNOWN_ID}/fhir", token=TOKEN_B)
        self.assertEqual((theirs.status, theirs.body), (404, unknown.body), "another tenant's id is an unknown one")
        self.assertEqual(SERVER.get(path).status, 401)
        bundle, observations = self.check_bundle(
            SERVER.get(f"/v1/subjects/{mc.quote(summary['subject'])}/fhir", token=TOKEN_B), "collection")
        self.assertEqual(observations, {}, "the other tenant has no session of this subject")
        self.assertNotIn("entry", bundle)


class SubjectBundleTests(FHIRChecks):
    def test_every_subjects_sessions_in_both_variants(self):
        by_subject = collections.defaultdict(dict)
        for _, summary in FINISHED:
            by_subject[summary["subject"]][summary["id"]] = summary
        for subject, summaries in by_subject.items():
            for kind in ("collection", "transaction"):
                path = f"/v1/subjects/{mc.quote(subject)}/fhir?limit=500" + ("&type=transaction"
                                                                           if kind == "transaction" else "")
                _, observations = self.check_bundle(SERVER.get(path, token=TOKEN_A), kind)
                self.assertEqual(set(observations), set(summaries), subject)
                for sid, observation in observations.items():
                    self.check_observation(observation, summaries[sid])

    def test_pages_follow_the_next_links(self):
        subject = subject_of("squat")
        listed = SERVER.get(f"/v1/sessions?subject={mc.quote(subject)}&limit=500", token=TOKEN_A).json()["sessions"]
        self.assertGreater(len(listed), 2)
        for kind in ("collection", "transaction"):
            path = f"/v1/subjects/{mc.quote(subject)}/fhir?limit=2" + ("&type=transaction"
                                                                      if kind == "transaction" else "")
            seen = []
            pages = 0
            while path:
                bundle, observations = self.check_bundle(SERVER.get(path, token=TOKEN_A), kind)
                self.assertLessEqual(len(observations), 2)
                seen += [entry["resource"]["identifier"][0]["value"] for entry in bundle.get("entry", [])]
                links = {link["relation"]: link["url"] for link in bundle["link"]}
                self.assertEqual(links["self"], path)
                path = links.get("next")
                pages += 1
                self.assertLessEqual(pages, len(listed))
            self.assertEqual(seen, [s["id"] for s in listed], f"{kind}: newest first, each once")

    def test_bad_queries_are_400(self):
        base = f"/v1/subjects/{mc.quote(subject_of('squat'))}/fhir"
        for query, code in [("type=bundle", "invalidQuery"), ("from=tomorrow", "invalidQuery"),
                            ("from=2026-03-01&to=2026-02-01", "invalidQuery"), ("limit=0", "invalidQuery"),
                            ("limit=100000", "invalidQuery"), ("cursor=not-a-cursor", "invalidCursor")]:
            response = SERVER.get(f"{base}?{query}", token=TOKEN_A)
            self.assertEqual(response.status, 400, query)
            self.assertEqual(response.json()["error"]["code"], code, query)
        response = SERVER.get(f"/v1/sessions/{FINISHED[0][1]['id']}/fhir?type=searchset", token=TOKEN_A)
        self.assertEqual((response.status, response.json()["error"]["code"]), (400, "invalidQuery"))


if __name__ == "__main__":
    unittest.main()
