"""Each captured g++ build of the given folders run twice, side by side in time: as its exact
command, and as the capture runs it with a precompiled prefix of its torch headers
(inductor_fuzz_worker/prefix_headers.py). Prints the seconds of each, the time it took to make
each prefix, and the ratio. Run by bench/prefix_compile.sh."""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

from inductor_fuzz_worker.capture import BuildCache
from inductor_fuzz_worker.prefix_headers import PrefixHeaders


def timed(argv, cwd):
    started = time.monotonic()
    done = subprocess.run(argv, cwd=cwd, capture_output=True)
    return time.monotonic() - started, done.returncode


def main(folders):
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        prefixes = PrefixHeaders(os.path.join(scratch, "gcc-prefixes"), BuildCache.torch_stamp())
        for folder in folders:
            commands = json.load(open(os.path.join(folder, "commands.json")))["commands"]
            for index, command in enumerate(commands):
                argv = list(command["argv"])
                stored = os.path.join(folder, command["sources"][0]["stored"])
                argv[argv.index(command["sources"][0]["captured_path"])] = stored
                argv[argv.index("-o") + 1] = os.path.join(scratch, f"out-{len(rows)}.so")
                compiler = command["compiler"]
                made = time.monotonic()
                for _ in range(2):  # a prefix is made the second time its key is met
                    accelerated = prefixes.accelerated(argv, scratch, compiler)
                made = time.monotonic() - made
                if not accelerated:
                    continue
                exact, exact_code = timed(argv, scratch)
                prefixed, prefixed_code = timed(accelerated, scratch)
                if exact_code or prefixed_code:
                    print(f"skipped {stored}: exit {exact_code} / {prefixed_code}", file=sys.stderr)
                    continue
                name = f"{os.path.basename(folder.rstrip('/'))}#{index}"
                rows.append((name, exact, prefixed, made))
    print("| build | exact s | with prefix s | ratio | prefix made in s (0: reused) |")
    print("|---|---|---|---|---|")
    for name, exact, prefixed, made in rows:
        print(f"| {name} | {exact:.1f} | {prefixed:.1f} | {prefixed / exact:.2f} | {made:.1f} |")
    if rows:
        exact = sum(row[1] for row in rows)
        prefixed = sum(row[2] for row in rows)
        print(f"| all {len(rows)} | {exact:.1f} | {prefixed:.1f} | {prefixed / exact:.2f} | |")
    print("commands:", " ".join(shlex.quote(folder) for folder in folders), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
