"""Real-browser tests of the web front end (Public/): headless Debian Chromium driven by Selenium against the
real motion-server started with `--public Public` on a free port and a temporary SQLite database.

Run from the repository root after `swift build --product motion-server` and `tests/browser/setup.sh`:

    python3 -m unittest tests/browser/test_browser.py

MOTION_SERVER_BIN overrides the server binary (default .build/debug/motion-server); CHROMIUM_BIN and
CHROMEDRIVER_BIN override the browser (default /usr/bin/chromium, /usr/bin/chromedriver).
"""

import asyncio
import json
import math
import os
import queue
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid

import websockets
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVER_BIN = os.environ.get("MOTION_SERVER_BIN", os.path.join(ROOT, ".build", "debug", "motion-server"))
CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")
PUBLIC = os.path.join(ROOT, "Public")

# A hash of a canvas's pixels, read in the page.
CANVAS_HASH = """
const c = document.getElementById(arguments[0]);
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let h = 0;
for (let i = 0; i < d.length; i += 4) h = (h * 31 + d[i] + d[i + 1] * 3 + d[i + 2] * 7) | 0;
return h;
"""

# How many pixels of a canvas are close to an RGB colour.
CANVAS_COLOR_COUNT = """
const [id, r, g, b] = arguments;
const c = document.getElementById(id);
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let n = 0;
for (let i = 0; i < d.length; i += 4) {
  if (Math.abs(d[i] - r) < 12 && Math.abs(d[i + 1] - g) < 12 && Math.abs(d[i + 2] - b) < 12) n++;
}
return n;
"""

CLEAN_RGB = (0x80, 0xED, 0x99)
REJECTED_RGB = (0xFF, 0x7B, 0x54)


def wait_for(condition, timeout=10.0, interval=0.1, message="condition"):
    """Polls `condition` until it returns a truthy value; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as error:  # the element may not exist yet
            last_error = error
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {message}" + (f" ({last_error})" if last_error else ""))


def elbow_pose(t, angle):
    """A side-view right elbow flexion pose in image pixels (1280x720), with the trunk and leg for setup checks."""
    a = math.radians(angle)
    return {
        "type": "pose", "t": round(t, 4), "width": 1280, "height": 720,
        "points": {
            "nose": [612, 190], "neck": [600, 250], "root": [600, 450],
            "rightShoulder": [600, 250], "rightElbow": [600, 400],
            "rightWrist": [round(600 + 150 * math.sin(a), 2), round(400 + 150 * math.cos(a), 2)],
            "rightHip": [600, 450], "rightKnee": [600, 560], "rightAnkle": [600, 660],
        },
    }


def elbow_angle(clock):
    """Rest for 1 s, then reps of 2 s (peak 130°) with 0.5 s rests."""
    if clock < 1.0:
        return 10.0
    phase = (clock - 1.0) % 2.5
    if phase >= 2.0:
        return 10.0
    return 10.0 + 120.0 * (0.5 - 0.5 * math.cos(2 * math.pi * phase / 2.0))


class BrowserTests(unittest.TestCase):
    server = None
    driver = None
    live_session = None  # {"id", "subject"} of the session the English Live test recorded

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(SERVER_BIN):
            raise unittest.SkipTest(f"{SERVER_BIN} not built (swift build --product motion-server)")
        cls.tmp = tempfile.mkdtemp(prefix="motion-browser-")
        cls.server = subprocess.Popen(
            [SERVER_BIN, "--port", "0", "--database", os.path.join(cls.tmp, "db.sqlite"), "--public", PUBLIC],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
        )
        lines = queue.Queue()

        def pump():
            for line in cls.server.stdout:
                lines.put(line)

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + 20
        cls.base = None
        while time.monotonic() < deadline and cls.base is None:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                if cls.server.poll() is not None:
                    break
                continue
            match = re.search(r"listening on (http://\S+)", line)
            if match:
                cls.base = match.group(1).rstrip("/")
        if cls.base is None:
            cls.stop_server()
            raise RuntimeError("the server did not print its address")
        try:
            cls.driver = cls.new_driver()
        except Exception:
            cls.stop_server()
            raise

    @classmethod
    def new_driver(cls):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,900", "--lang=en-US", "--mute-audio"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_page_load_timeout(20)
        driver.set_script_timeout(10)
        return driver

    @classmethod
    def stop_server(cls):
        if cls.server and cls.server.poll() is None:
            cls.server.send_signal(signal.SIGTERM)
            try:
                cls.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                cls.server.kill()
                cls.server.wait(timeout=5)

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.driver:
                cls.driver.quit()
        finally:
            cls.stop_server()
            shutil.rmtree(getattr(cls, "tmp", ""), ignore_errors=True)

    # ---- helpers ----------------------------------------------------------------------------------------

    def setUp(self):
        self.allowed_console = ()
        self.driver.set_window_size(1280, 900)
        self.driver.get_log("browser")  # drop what earlier pages left

    def tearDown(self):
        self.assert_no_console_errors()

    def assert_no_console_errors(self):
        entries = self.driver.get_log("browser")
        severe = [e for e in entries if e["level"] == "SEVERE"
                  and not any(allowed in e["message"] for allowed in self.allowed_console)]
        self.assertEqual(severe, [], "console errors")

    def open(self, path):
        self.driver.get(self.base + path)
        wait_for(lambda: self.driver.execute_script("return document.readyState") == "complete", 15, message="load")

    def el(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def text(self, element_id):
        return self.el(element_id).text

    def canvas_hash(self, element_id):
        return self.driver.execute_script(CANVAS_HASH, element_id)

    def api(self, path, method="GET"):
        request = urllib.request.Request(self.base + path, method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read().decode()

    def feedback_text(self):
        return self.text("feedback-line") + "\n" + self.text("feedback-log")

    def assert_no_horizontal_scroll(self):
        overflow = self.driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        self.assertLessEqual(overflow, 0, f"page scrolls horizontally by {overflow}px")

    def start_demo(self, lang, exercise="elbowFlexion"):
        subject = f"browser-{lang}-{uuid.uuid4().hex[:8]}"
        self.open(f"/?lang={lang}")
        wait_for(lambda: self.driver.execute_script("return document.body.dataset.ready") == "true", 10,
                 message="catalog loaded")
        Select(self.el("exercise")).select_by_value(exercise)
        Select(self.el("source")).select_by_value("demo")
        self.el("subject").clear()
        self.el("subject").send_keys(subject)
        self.el("start").click()
        return subject

    def live_demo(self, lang, fault_text, started_word, stop_after_fault=False):
        subject = self.start_demo(lang)
        status = wait_for(lambda: started_word in self.text("status") and self.text("status"), 10,
                          message="started")
        session_id = self.el("status").get_attribute("data-session")
        self.assertTrue(session_id, status)
        # The angle updates.
        first = wait_for(lambda: re.search(r"\d", self.text("hud-angle")) and self.text("hud-angle"), 5,
                         message="an angle")
        wait_for(lambda: self.text("hud-angle") != first, 5, message="the angle to change")
        # The chart draws and keeps drawing.
        chart_before = self.canvas_hash("chart")
        wait_for(lambda: self.canvas_hash("chart") != chart_before, 5, message="chart pixels to change")
        # The second rep of the demo acts out a fault, in the chosen language.
        wait_for(lambda: fault_text in self.feedback_text(), 15, message=f"fault text {fault_text!r}")
        if not stop_after_fault:
            wait_for(lambda: int(self.text("hud-clean")) >= 2, 15, message="two clean reps")
            self.assertGreaterEqual(int(self.text("hud-rejected")), 1)
            self.assertGreater(self.driver.execute_script(CANVAS_COLOR_COUNT, "chart", *CLEAN_RGB), 0,
                               "clean rep marker on the chart")
        self.el("stop").click()
        wait_for(lambda: self.el("summary").is_displayed(), 10, message="summary")
        return subject, session_id

    # ---- Live ---------------------------------------------------------------------------------------------

    def test_1_live_demo_english(self):
        subject, session_id = self.live_demo("en", "Keep your upper arm still", "started")
        reps = int(self.text("summary-reps"))
        self.assertGreaterEqual(reps, 2)
        self.assertIn("Keep your upper arm still", self.text("summary-faults"))
        self.assertIn(session_id, self.el("summary-link").get_attribute("href"))
        self.assertEqual(self.text("start"), "Start")
        self.assertTrue(self.el("start").is_enabled())
        type(self).live_session = {"id": session_id, "subject": subject, "reps": reps}

    def test_2_live_demo_spanish(self):
        self.live_demo("es", "Mantenga quieto el brazo", "iniciada", stop_after_fault=True)
        self.assertEqual(self.text("start"), "Empezar")
        self.assertIn("Resumen", self.text("summary-heading"))
        # Switching the language re-translates what is on screen.
        Select(self.el("lang")).select_by_value("en")
        wait_for(lambda: "Keep your upper arm still" in self.feedback_text(), 3, message="re-translated feedback")
        self.assertEqual(self.text("start"), "Start")

    def test_3_camera_unavailable_offers_demo(self):
        # No internet here: the MediaPipe CDN cannot load (or, with internet, there is no camera).
        self.allowed_console = ("jsdelivr", "mediapipe", "googleapis")
        self.open("/?lang=en")
        wait_for(lambda: self.driver.execute_script("return document.body.dataset.ready") == "true", 10,
                 message="catalog loaded")
        Select(self.el("source")).select_by_value("camera")
        self.el("start").click()
        wait_for(lambda: self.el("camera-message").is_displayed(), 30, message="camera message")
        message = self.text("camera-message-text")
        self.assertRegex(message, r"could not be (loaded|opened)")
        self.assertIn("Demo", message)
        self.el("use-demo").click()
        self.assertEqual(Select(self.el("source")).first_selected_option.get_attribute("value"), "demo")
        self.assertTrue(self.el("start").is_enabled())

    def test_4_replay_file(self):
        path = os.path.join(self.tmp, "recording.jsonl")
        with open(path, "w") as f:
            f.write(json.dumps({"type": "start", "format": "joints"}) + "\n")
            for i in range(int(5.0 * 30)):
                f.write(json.dumps(elbow_pose(100 + i / 30, elbow_angle(i / 30))) + "\n")
        self.open("/?lang=en")
        wait_for(lambda: self.driver.execute_script("return document.body.dataset.ready") == "true", 10,
                 message="catalog loaded")
        Select(self.el("source")).select_by_value("replay")
        self.el("replay-file").send_keys(path)
        self.el("start").click()
        wait_for(lambda: int(self.text("hud-clean")) >= 1, 10, message="a rep from the replay")
        wait_for(lambda: self.el("summary").is_displayed(), 10, message="summary after the recording ends")

    # ---- History ------------------------------------------------------------------------------------------

    def recorded(self):
        if not self.live_session:
            self.skipTest("the English Live test did not record a session")
        return self.live_session

    def test_5_history_list_and_session(self):
        live = self.recorded()
        self.open("/history.html?lang=en")
        wait_for(lambda: self.driver.find_elements(By.CSS_SELECTOR, f'tr[data-session="{live["id"]}"]'), 10,
                 message="the session in the list")
        # Filter by subject.
        self.el("f-subject").send_keys(live["subject"])
        self.el("f-subject").submit()
        wait_for(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#sessions tbody tr")) == 1, 10,
                 message="one filtered row")
        row = self.driver.find_element(By.CSS_SELECTOR, f'tr[data-session="{live["id"]}"]')
        self.assertIn(live["subject"], row.text)
        row.find_element(By.TAG_NAME, "a").click()
        wait_for(lambda: self.driver.execute_script("return document.body.dataset.ready") == "true", 10,
                 message="session page")
        self.assertEqual(self.text("summary-reps"), str(live["reps"]))
        fault = self.driver.find_element(By.CSS_SELECTOR, '#fault-counts li[data-fault="keepUpperArmStill"]')
        self.assertRegex(fault.text, r"Keep your upper arm still: [1-9]")
        self.assertGreater(self.driver.execute_script(CANVAS_COLOR_COUNT, "rep-chart", *CLEAN_RGB), 50,
                           "clean bars drawn")
        self.assertGreater(self.driver.execute_script(CANVAS_COLOR_COUNT, "rep-chart", *REJECTED_RGB), 50,
                           "rejected bars drawn")
        self.assertGreater(self.driver.execute_script(CANVAS_COLOR_COUNT, "series-chart", 0x4C, 0xC9, 0xF0), 50,
                           "series line drawn")
        # The CSV link downloads the reps.
        href = self.el("csv").get_attribute("href")
        with urllib.request.urlopen(href, timeout=10) as response:
            self.assertEqual(response.status, 200)
            self.assertIn("text/csv", response.headers["Content-Type"])
            lines = response.read().decode().strip().splitlines()
        self.assertTrue(lines[0].startswith("index,peak"))
        self.assertGreaterEqual(len(lines) - 1, live["reps"] + 1)

    def test_6_history_delete_with_confirmation(self):
        live = self.recorded()
        self.open(f"/history.html?session={live['id']}&lang=en")
        wait_for(lambda: self.driver.execute_script("return document.body.dataset.ready") == "true", 10,
                 message="session page")
        # Cancelling keeps it.
        self.el("delete").click()
        alert = wait_for(lambda: self.driver.switch_to.alert, 5, message="confirmation")
        self.assertIn(live["id"], alert.text)
        alert.dismiss()
        self.assertEqual(self.api(f"/v1/sessions/{live['id']}")[0], 200)
        # Confirming deletes it.
        self.el("delete").click()
        wait_for(lambda: self.driver.switch_to.alert, 5, message="confirmation").accept()
        wait_for(lambda: "deleted" in self.text("list-status"), 10, message="deleted message")
        self.assertFalse(self.driver.find_elements(By.CSS_SELECTOR, f'tr[data-session="{live["id"]}"]'))
        with self.assertRaises(urllib.error.HTTPError) as caught:
            self.api(f"/v1/sessions/{live['id']}")
        self.assertEqual(caught.exception.code, 404)

    # ---- Watch --------------------------------------------------------------------------------------------

    def test_7_watch_follows_a_websocket_session(self):
        ids = queue.Queue()
        watcher_ready = threading.Event()
        outcome = {}

        async def client():
            url = self.base.replace("http://", "ws://") + "/v1/stream"
            async with websockets.connect(url) as ws:
                await ws.send(json.dumps({"type": "start", "exercise": "elbowFlexion", "side": "right",
                                          "subject": "watched-patient", "options": {"snapshots": "every"}}))
                started = json.loads(await ws.recv())
                ids.put(started.get("session"))

                async def drain():
                    async for message in ws:
                        m = json.loads(message)
                        if m["type"] == "summary":
                            outcome["summary"] = m

                reader = asyncio.create_task(drain())
                await asyncio.get_running_loop().run_in_executor(None, watcher_ready.wait, 15)
                t0 = time.monotonic()
                while time.monotonic() - t0 < 9.0:
                    clock = time.monotonic() - t0
                    await ws.send(json.dumps(elbow_pose(clock, elbow_angle(clock))))
                    await asyncio.sleep(1 / 30)
                await ws.send(json.dumps({"type": "stop"}))
                await asyncio.wait_for(reader, 10)

        thread = threading.Thread(target=lambda: asyncio.run(client()), daemon=True)
        thread.start()
        session_id = ids.get(timeout=10)
        self.assertTrue(session_id)
        try:
            self.open(f"/watch.html?session={session_id}&lang=en")
            wait_for(lambda: "Following" in self.text("status"), 10, message="following")
            self.assertIn("watched-patient", self.text("status"))
            # Controls are absent on Watch.
            self.assertFalse(self.driver.find_elements(By.ID, "start"))
        finally:
            watcher_ready.set()
        first = wait_for(lambda: re.search(r"\d", self.text("hud-angle")) and self.text("hud-angle"), 10,
                         message="an angle")
        wait_for(lambda: self.text("hud-angle") != first, 5, message="the angle to change")
        chart_before = self.canvas_hash("chart")
        wait_for(lambda: self.canvas_hash("chart") != chart_before, 5, message="chart pixels to change")
        wait_for(lambda: int(self.text("hud-clean")) >= 2, 12, message="two reps on the watcher")
        wait_for(lambda: "ended" in self.text("status"), 15, message="session end")
        wait_for(lambda: self.el("summary").is_displayed(), 10, message="summary on the watcher")
        thread.join(15)
        self.assertIn("summary", outcome)
        self.assertGreaterEqual(int(self.text("summary-reps")), 2)

    # ---- Phone ----------------------------------------------------------------------------------------------

    def test_8_phone_viewport_has_no_horizontal_scroll(self):
        self.driver.set_window_size(390, 844)
        width = self.driver.execute_script("return window.innerWidth")
        self.assertLess(width, 500)
        self.start_demo("es")
        wait_for(lambda: "iniciada" in self.text("status"), 10, message="started")
        wait_for(lambda: re.search(r"\d", self.text("hud-angle")), 5, message="an angle")
        self.assert_no_horizontal_scroll()
        self.el("stop").click()
        wait_for(lambda: self.el("summary").is_displayed(), 10, message="summary")
        self.assert_no_horizontal_scroll()
        session_id = self.el("status").get_attribute("data-session")
        for path in ("/history.html?lang=es", f"/history.html?session={session_id}&lang=es", "/watch.html?lang=es"):
            self.open(path)
            time.sleep(0.5)
            self.assert_no_horizontal_scroll()


if __name__ == "__main__":
    unittest.main()
