"""`AlarmTestCase`: a unittest TestCase whose every test runs under an alarm, so a test that hangs fails with
TimeoutError instead of stopping the suite. Shared by the black-box suites (blackbox/websocket, blackbox/tls);
import after adding this directory to sys.path.
"""

import signal
import unittest


class AlarmTestCase(unittest.TestCase):
    """Each test has TEST_TIMEOUT seconds (SIGALRM; a subclass sets its own). A subclass that overrides setUp or
    tearDown calls the base one."""

    TEST_TIMEOUT = 60

    def setUp(self):
        def on_alarm(signum, frame):
            raise TimeoutError("test exceeded %d s" % self.TEST_TIMEOUT)

        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(self.TEST_TIMEOUT)

    def tearDown(self):
        signal.alarm(0)
