"""A file of run requests through the worker's own oracles (inductor_fuzz_worker.serve, the code
the C++ tool's worker embeds), in a child python that is replaced when a case kills it.

    OUT/capture.json                 kind "cases": provenance, the cases and how each ended
    OUT/worker.log                   what the workers printed
    OUT/cases/NNNN-NAME/request.json the request as run (its case, Inductor config, device)
    OUT/cases/NNNN-NAME/reply.json   the worker's result, or how the worker died and its log
    OUT/cases/NNNN-NAME/commands.json, sources/, wrappers/, recordings/   what it compiled

Findings are not judged here: `inductor-fuzz corpus import OUT` turns each reply into its
finding with the code `run-case` uses, so that a signature has one maker.
"""

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time

from inductor_fuzz_worker.capture import BUILD_JOURNAL
from inductor_fuzz_worker.capture_folder import (
    CAPTURE_FORMAT_VERSION,
    machine_provenance,
    safe_file_name,
    write_atomically,
    write_builds,
)

from .cli import EXIT_FINDINGS, EXIT_NOTHING_FOUND, InputError, prepare_output_folder, write_json
from .program_run import describe_exit, package_root

CASE_OUTPUTS = ("capture.json", "worker.log", "cases", "scratch")
REQUEST_FIELDS = ("case", "inductor_config", "dynamic")
LOG_TAIL_BYTES = 64 * 1024
READY_TIMEOUT = 900

# The child: fd 1 becomes stderr (the log) so that nothing torch prints mixes with a reply, as in
# fuzzer/worker/worker_main.cpp; replies go to a private copy of the original stdout.
WORKER_BOOT = (
    "import os, sys\n"
    "protocol = os.dup(1)\n"
    "os.dup2(2, 1)\n"
    "from inductor_fuzz_worker.serve import serve\n"
    "code = serve(protocol, sys.argv[1])\n"
    "sys.stdout.flush(); sys.stderr.flush()\n"
    "os._exit(code)\n"
)


def read_requests(path, device):
    """The file's requests, each checked; one line of error naming the line otherwise."""
    if not os.path.isfile(path):
        raise InputError(f"--cases {path} is not a file")
    requests = []
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, start=1):
            try:
                line = raw.decode("utf-8").strip()
            except UnicodeDecodeError:
                raise InputError(
                    f"{path}:{number} is not UTF-8 text: give a JSON-lines file of run requests "
                    "(inductor-fuzz gen --requests)"
                ) from None
            if not line:
                continue
            try:
                request = json.loads(line)
            except ValueError as error:
                raise InputError(f"{path}:{number} is not JSON ({error})") from None
            if not isinstance(request, dict) or any(k not in request for k in REQUEST_FIELDS):
                raise InputError(
                    f"{path}:{number} is not a run request (an object with "
                    f"{', '.join(REQUEST_FIELDS)}); a bare case file becomes one with "
                    "`inductor-fuzz gen --requests --from CASE.json`"
                )
            case = request["case"]
            if not isinstance(case, dict) or not isinstance(case.get("name"), str):
                raise InputError(f"{path}:{number}: its case has no name")
            mask = case.get("create_block_mask")
            if isinstance(mask, dict) and "device" in mask:
                mask["device"] = device
            requests.append(request)
    if not requests:
        raise InputError(f"--cases {path} holds no request")
    return requests


class WorkerProcess:
    """One child python serving requests; started again after a death."""

    def __init__(self, out_dir, log_path):
        self.out_dir = out_dir
        self.log_path = log_path
        self.child = None
        self.buffer = b""
        self.next_id = 1
        self.ready = None

    def start(self):
        environment = dict(os.environ)
        existing = environment.get("PYTHONPATH")
        environment["PYTHONPATH"] = package_root() + (os.pathsep + existing if existing else "")
        environment["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        scratch = os.path.join(self.out_dir, "scratch")
        os.makedirs(scratch, exist_ok=True)
        with open(self.log_path, "ab") as log:
            self.child = subprocess.Popen(
                [sys.executable, "-c", WORKER_BOOT, scratch],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=environment,
                start_new_session=True,
            )
        self.buffer = b""
        line = self.read_line(time.monotonic() + READY_TIMEOUT)
        message = json.loads(line) if line else None
        if not message or message.get("event") != "ready":
            self.kill()
            if message and message.get("event") == "unsupported":
                raise InputError(
                    f"torch {message.get('torch_version')} cannot run cases: "
                    + "; ".join(message.get("reasons", []))
                )
            raise InputError(
                f"the worker did not start ({describe_exit(self.child.returncode or 0)}); see "
                f"{self.log_path}"
            )
        self.ready = message

    def read_line(self, deadline):
        """The next line the child writes before `deadline`, or None (it died or timed out)."""
        with selectors.DefaultSelector() as selector:
            selector.register(self.child.stdout, selectors.EVENT_READ)
            while b"\n" not in self.buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                if not selector.select(timeout=left):
                    continue
                chunk = os.read(self.child.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def request(self, message, timeout):
        """{"status": "ok", "reply": ...}, or {"status": "crashed"|"timed_out", "exit": ...}."""
        if self.child is None:
            self.start()
        request_id = self.next_id
        self.next_id += 1
        message = dict(message, id=request_id)
        try:
            self.child.stdin.write((json.dumps(message) + "\n").encode())
            self.child.stdin.flush()
        except OSError:
            pass  # it died: the read below says so
        deadline = time.monotonic() + timeout
        while True:
            line = self.read_line(deadline)
            if line is None:
                break
            try:
                reply = json.loads(line)
            except ValueError:
                continue
            if isinstance(reply, dict) and reply.get("id") == request_id:
                return {"status": "ok", "reply": reply}
        # The reply stream ended: the child is dying (give it until the deadline to be reaped)
        # or the deadline passed with it still running.
        try:
            self.child.wait(timeout=max(deadline - time.monotonic(), 0.1))
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            self.kill()
        code = self.child.wait()
        self.child = None
        return {
            "status": "timed_out" if timed_out else "crashed",
            "exit": {"code": code if code >= 0 else None, "signal": -code if code < 0 else None},
            "detail": (
                f"no reply within {timeout:g} s; worker killed"
                if timed_out
                else f"worker died: {describe_exit(code)}"
            ),
        }

    def kill(self):
        if self.child and self.child.poll() is None:
            try:
                os.killpg(self.child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.child.wait()

    def shutdown(self):
        if self.child is None:
            return
        try:
            self.child.stdin.write(b'{"op": "shutdown"}\n')
            self.child.stdin.flush()
            self.read_line(time.monotonic() + 30)
        except OSError:
            pass
        self.kill()
        self.child = None


def log_tail(path, offset):
    with open(path, "rb") as log:
        log.seek(max(offset, os.path.getsize(path) - LOG_TAIL_BYTES))
        return log.read().decode("utf-8", "replace")


def journal_builds(record_dir):
    """The builds a dead worker flushed (one JSON line each; a cut line is dropped)."""
    builds = []
    try:
        with open(os.path.join(record_dir, BUILD_JOURNAL), encoding="utf-8") as journal:
            for line in journal:
                try:
                    builds.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return builds


def run_one(worker, request, case_dir, timeout):
    """Runs one request; writes its folder; returns how it ended, as capture.json lists it."""
    os.makedirs(case_dir)
    record_dir = os.path.join(case_dir, "recordings")
    cache_dir = os.path.join(case_dir, "inductor-cache")
    run = dict(request, op="run", record_dir=record_dir, cache_dir=cache_dir)
    write_json(os.path.join(case_dir, "request.json"), request)
    log_offset = os.path.getsize(worker.log_path) if os.path.exists(worker.log_path) else 0
    started = time.monotonic()
    answer = worker.request(run, timeout)
    seconds = round(time.monotonic() - started, 3)
    stored = {"status": answer["status"], "seconds": seconds}
    if answer["status"] == "ok" and isinstance(answer["reply"].get("result"), dict):
        stored["result"] = write_builds(case_dir, answer["reply"]["result"])
        ended = stored["result"].get("status", "?")
        if stored["result"].get("kind"):
            ended += f" ({stored['result']['kind']})"
    elif answer["status"] == "ok":  # an answer that is not a result: the protocol broke
        stored.update(status="crashed", detail=f"worker protocol error: {answer['reply']}")
        stored["exit"] = {"code": None, "signal": None}
        ended = "crashed (protocol error)"
    else:
        stored.update(exit=answer["exit"], detail=answer["detail"])
        stored["log"] = log_tail(worker.log_path, log_offset)
        builds = journal_builds(record_dir)
        write_builds(case_dir, {"builds": builds})
        ended = f"{answer['status']} ({answer['detail']})"
    write_json(os.path.join(case_dir, "reply.json"), stored)
    shutil.rmtree(cache_dir, ignore_errors=True)
    return stored, ended


def run_cases(arguments, provenance, out):
    requests = read_requests(arguments.cases, arguments.device)
    out_dir = os.path.abspath(arguments.out)
    prepare_output_folder(out_dir, CASE_OUTPUTS)
    os.makedirs(os.path.join(out_dir, "cases"))
    log_path = os.path.join(out_dir, "worker.log")
    worker = WorkerProcess(out_dir, log_path)
    started = time.monotonic()
    worker.start()
    out.write(
        f"capture: {len(requests)} case(s) on {arguments.device}, torch "
        f"{worker.ready.get('torch_version')}, Python {sys.version.split()[0]}\n"
    )
    out.flush()
    listed = []
    found = 0
    cases_started = time.monotonic()
    try:
        for index, request in enumerate(requests):
            if arguments.time and time.monotonic() - cases_started > arguments.time:
                out.write(
                    f"  --time {arguments.time:g} s is up: "
                    f"{len(requests) - index} case(s) not run\n"
                )
                break
            name = request["case"]["name"]
            folder = safe_file_name(name, index)
            stored, ended = run_one(
                worker, request, os.path.join(out_dir, "cases", folder), arguments.timeout
            )
            # A CUDA error is sticky: the process's context is lost for every later case, which
            # a fresh worker runs instead.
            if arguments.device == "cuda" and "CUDA error" in json.dumps(stored):
                worker.shutdown()
            failed = stored["status"] != "ok" or stored["result"].get("status") == "finding"
            found += failed
            listed.append({"case": name, "folder": os.path.join("cases", folder), "ended": ended})
            out.write(
                f"  [{index + 1}/{len(requests)}] {name}: {ended}; {stored['seconds']:.1f} s\n"
            )
            out.flush()
    finally:
        worker.shutdown()
        shutil.rmtree(os.path.join(out_dir, "scratch"), ignore_errors=True)
    provenance = dict(provenance)
    provenance.update(machine_provenance(os.path.join(out_dir, "cases")))
    provenance["wall_seconds"] = round(time.monotonic() - started, 3)
    provenance["device"] = arguments.device
    document = {
        "format_version": CAPTURE_FORMAT_VERSION,
        "kind": "cases",
        "cases": listed,
        "provenance": provenance,
    }
    write_atomically(os.path.join(out_dir, "capture.json"), json.dumps(document, indent=2) + "\n")
    out.write(
        f"capture: {found} of {len(listed)} case(s) run failed; wrote {out_dir} "
        "(inductor-fuzz corpus import takes it)\n"
    )
    return EXIT_FINDINGS if found else EXIT_NOTHING_FOUND
