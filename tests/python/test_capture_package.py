"""The capture folder's writer (inductor_fuzz_worker.capture_folder) and the portable capture's
refusals (inductor_fuzz_capture): what is stored where, and bad input said in one line, exit 2,
with nothing written. Seconds; no case is compiled."""

import contextlib
import io
import json
import os
import tempfile
import unittest

from inductor_fuzz_capture.case_runs import read_requests
from inductor_fuzz_capture.cli import InputError, main, prepare_output_folder
from inductor_fuzz_worker.capture_folder import safe_file_name, write_builds


class WriteBuildsTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.out = self.scratch.name

    def tearDown(self):
        self.scratch.cleanup()

    def test_sources_recordings_and_wrappers_are_stored_inside_the_folder(self):
        module = "/elsewhere/cache/ab/cab.main.so"
        report = {
            "builds": [
                {
                    "argv": ["g++", "/elsewhere/cache/ab/cab.main.cpp", "-o", module],
                    "cwd": "/elsewhere",
                    "compiler": {"path": "/usr/bin/g++", "version": "g++ 12"},
                    "sources": [{"path": "/elsewhere/cache/ab/cab.main.cpp", "text": "int k;"}],
                    "seconds": 1.5,
                },
                {"argv": ["g++", "-c", "x y.cpp"], "sources": [{"path": "x y.cpp", "text": ""}]},
            ],
            "recordings": [
                {"module": module, "file": os.path.join(self.out, "recordings", "00-cab.pt")},
                {"module": "/other.so", "file": "/outside/the/folder.pt"},
            ],
            "wrappers": [{"path": "/elsewhere/cache/w/wrapper.py", "text": "print(1)"}],
        }
        stored = write_builds(self.out, report)
        with open(os.path.join(self.out, "commands.json")) as commands_file:
            commands = json.load(commands_file)
        self.assertEqual(commands["format_version"], 2)
        first, second = commands["commands"]
        self.assertEqual(first["sources"][0]["stored"], "sources/00-cab.main.cpp")
        self.assertEqual(first["recording"], "recordings/00-cab.pt")
        self.assertEqual(first["compiler"]["version"], "g++ 12")
        self.assertNotIn("recording", second)
        self.assertEqual(second["sources"][0]["stored"], "sources/01-x_y.cpp")
        with open(os.path.join(self.out, "sources", "00-cab.main.cpp")) as source:
            self.assertEqual(source.read(), "int k;")
        self.assertNotIn("builds", stored)
        self.assertEqual(stored["wrappers"], ["wrappers/00-wrapper.py"])
        self.assertEqual(stored["recordings"][0]["file"], "recordings/00-cab.pt")
        # A recording outside the folder is neither made relative nor given to a command.
        self.assertEqual(stored["recordings"][1]["file"], "/outside/the/folder.pt")

    def test_safe_file_names_keep_ascii_letters_digits_and_dots_byte_by_byte(self):
        self.assertEqual(safe_file_name("/a/b/k\u00e9r nel.cpp", 7), "07-k__r_nel.cpp")


class RefusalTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.dir = self.scratch.name

    def tearDown(self):
        self.scratch.cleanup()

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as out:
            out.write(data)
        return path

    def refused(self, path, expected):
        with self.assertRaises(InputError) as raised:
            read_requests(path, "cpu")
        self.assertIn(expected, str(raised.exception))
        self.assertNotIn("\n", str(raised.exception))

    def test_a_cases_file_that_is_not_run_requests_is_refused_naming_the_line(self):
        self.refused(os.path.join(self.dir, "none.jsonl"), "is not a file")
        self.refused(
            self.write("binary.jsonl", b"\x7fELF\xff\xfe\x00"), "binary.jsonl:1 is not UTF-8"
        )
        self.refused(self.write("text.jsonl", b"\n{not json}\n"), "text.jsonl:2 is not JSON")
        self.refused(
            self.write("case.jsonl", json.dumps({"name": "c", "api": "create_mask"}).encode()),
            "is not a run request",
        )
        self.refused(self.write("empty.jsonl", b"\n\n"), "holds no request")

    def test_a_request_runs_on_the_device_asked_for(self):
        request = {
            "case": {"name": "c", "create_block_mask": {"device": "cpu"}},
            "inductor_config": {},
            "dynamic": False,
        }
        path = self.write("one.jsonl", json.dumps(request).encode())
        (read,) = read_requests(path, "cuda")
        self.assertEqual(read["case"]["create_block_mask"]["device"], "cuda")

    def test_a_folder_holding_what_the_capture_did_not_write_is_left_alone(self):
        self.write("notes.txt", b"mine")
        with self.assertRaises(InputError):
            prepare_output_folder(self.dir, ("capture.json", "cases"))
        self.assertTrue(os.path.exists(os.path.join(self.dir, "notes.txt")))

    def test_the_command_line_says_what_is_wrong_and_exits_2(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(["--out", os.path.join(self.dir, "out")])
        self.assertEqual(code, 2)
        self.assertIn("give a program after --", err.getvalue())
        with contextlib.redirect_stderr(err):
            code = main(["--out", os.path.join(self.dir, "out"), "--", "missing_script.py"])
        self.assertEqual(code, 2)
        self.assertIn("missing_script.py is not a file", err.getvalue())
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out")))


if __name__ == "__main__":
    unittest.main()
