#!/usr/bin/env python3
"""The examples of README.md and docs/**/*.md still work.

    tests/docs_examples.py SOURCE_DIR BINARY_DIR

Every fenced ```sh block is read. For each `build/inductor-fuzz` command in it, the command
(after the global --torch/--venv) must be one the binary lists, and every --option before a
bare `--` must be in that command's --help. Every argument that names a file of the repository
(tests/..., corpus/..., bench/..., scripts/...) must exist. A block right after the line
`<!-- docs-test: run -->` is also run, line by line, in a scratch folder that links the
repository's files (so `out/`, `cases.jsonl` and the like land there): each line must exit 0 or
1 (1: findings), never 2 (a tool failure: an unknown flag, a missing file). Mark only blocks that
take seconds (gen, check on a fixture, --help). Relative links between the pages must resolve,
and README.md must stay at most 12,000 characters. docs/architecture.md's kinds table is what
`inductor-fuzz corpus kinds` prints from the kinds' rows (corpus/kinds/*.cpp), verbatim, and
docs/signature.md names every kind. Prints one line per problem; exit 1 on any.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

RUN_MARK = "<!-- docs-test: run -->"
OPERATORS = {"&&", "||", "|", ";", "&"}
REDIRECTIONS = {">", ">>", "<", "2>", "&>"}
REPO_FOLDERS = (
    "tests/",
    "corpus/",
    "bench/",
    "scripts/",
    "docs/",
    "fuzzer/",
    "parsers/",
    "reducers/",
    "support/",
    "cli/",
    "deploy/",
)
README_LIMIT = 12000


def blocks(path):
    """(language, first line number, text, marked to run) of each fenced block of a page."""
    found = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        match = re.match(r"^```(\S*)\s*$", lines[i])
        if not match:
            i += 1
            continue
        previous = next((line for line in reversed(lines[:i]) if line.strip()), "")
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        found.append((match.group(1), start + 1, "\n".join(body), previous.strip() == RUN_MARK))
        i += 1
    return found


def logical_lines(text):
    """Lines with their backslash continuations joined; comment-only lines dropped."""
    joined, pending = [], ""
    for line in text.split("\n"):
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            joined.append(line)
    return joined


def simple_commands(line):
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands, current, skip_next = [], [], False
    for token in lexer:
        if skip_next:
            skip_next = False
        elif token in OPERATORS:
            commands.append(current)
            current = []
        elif token in REDIRECTIONS:
            skip_next = True
        else:
            current.append(token)
    commands.append(current)
    commands = [[t for t in c] for c in commands if c]
    for command in commands:
        while command and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", command[0]):
            command.pop(0)
    return [c for c in commands if c]


class Binary:
    def __init__(self, path):
        self.path = path
        self.helps = {}

    def help_options(self, *words):
        if words not in self.helps:
            run = subprocess.run(
                [self.path, *words, "--help"], capture_output=True, text=True, timeout=60
            )
            if run.returncode != 0:
                self.helps[words] = None
            else:
                text = run.stdout
                options = set(re.findall(r"^\s+(?:-\w,)?(--[\w-]+)", text, re.M))
                subcommands = set()
                if "Subcommands:" in text:
                    section = text.split("Subcommands:", 1)[1]
                    subcommands = set(re.findall(r"^  ([a-z][\w-]*)\s", section, re.M))
                self.helps[words] = (options, subcommands)
        return self.helps[words]


def check_command(command, binary, where, problems):
    words = command[1:]
    top_options, subcommands = binary.help_options()
    while words and words[0].startswith("--"):
        name = words[0].split("=", 1)[0]
        if name not in top_options:
            problems.append(f"{where}: inductor-fuzz has no option {name}")
        words = words[1 if "=" in words[0] or name in ("--help", "--version") else 2 :]
    if not words:
        return
    sub = words[0]
    if sub not in subcommands:
        problems.append(f"{where}: inductor-fuzz has no command '{sub}'")
        return
    help_result = binary.help_options(sub)
    if help_result is None:
        problems.append(f"{where}: `inductor-fuzz {sub} --help` fails")
        return
    options = help_result[0]
    for word in words[1:]:
        if word == "--":
            break
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name not in options:
                problems.append(f"{where}: `inductor-fuzz {sub}` has no option {name}")


def check_paths(command, source, where, problems):
    for word in command:
        if "$" in word or "<" in word:
            continue
        if word.startswith(REPO_FOLDERS):
            if not glob.glob(os.path.join(source, word)):
                problems.append(f"{where}: {word} does not exist")


def check_links(page, source, problems):
    text = open(page, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^(https?:|mailto:|#)", target):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#", 1)[0]))
        if not os.path.exists(path):
            problems.append(f"{os.path.relpath(page, source)}: link {target} leads nowhere")


def check_kind_tables(source, binary_path, problems):
    """docs/architecture.md holds the kinds table `inductor-fuzz corpus kinds` prints from the
    kinds' rows, verbatim; docs/signature.md names every kind."""
    printed = subprocess.run(
        [binary_path, "corpus", "kinds"], capture_output=True, text=True, timeout=60
    )
    table = printed.stdout
    names = re.findall(r"^\| `([a-z-]+)` \|", table, re.MULTILINE)
    if printed.returncode != 0 or len(names) < 12:
        problems.append(f"corpus kinds: exit {printed.returncode}, {len(names)} kinds printed")
        return
    architecture = open(os.path.join(source, "docs", "architecture.md"), encoding="utf-8").read()
    if table not in architecture:
        problems.append(
            "docs/architecture.md: its finding kinds table is not what `build/inductor-fuzz "
            "corpus kinds` prints; paste that in"
        )
    signature = open(os.path.join(source, "docs", "signature.md"), encoding="utf-8").read()
    for name in names:
        if f"`{name}" not in signature:
            problems.append(f"docs/signature.md: finding kind {name} is not listed")


def scratch_folder(source, binary_dir):
    scratch = tempfile.mkdtemp(prefix="docs-examples-")
    for name in os.listdir(source):
        if name in ("build", "out", ".git"):
            continue
        os.symlink(os.path.join(source, name), os.path.join(scratch, name))
    os.symlink(binary_dir, os.path.join(scratch, "build"))
    return scratch


def main():
    source, binary_dir = (os.path.abspath(a) for a in sys.argv[1:3])
    binary = Binary(os.path.join(binary_dir, "inductor-fuzz"))
    pages = [os.path.join(source, "README.md")] + sorted(
        glob.glob(os.path.join(source, "docs", "**", "*.md"), recursive=True)
    )
    problems, to_run, checked = [], [], 0
    readme_size = len(open(pages[0], encoding="utf-8").read().encode("utf-8"))
    if readme_size > README_LIMIT:
        problems.append(f"README.md: {readme_size} characters, more than {README_LIMIT}")
    check_kind_tables(source, os.path.join(binary_dir, "inductor-fuzz"), problems)
    for page in pages:
        check_links(page, source, problems)
        for language, line_number, text, run in blocks(page):
            if language != "sh":
                continue
            where = f"{os.path.relpath(page, source)}:{line_number}"
            for line in logical_lines(text):
                for command in simple_commands(line):
                    checked += 1
                    if command[0] == "build/inductor-fuzz":
                        check_command(command, binary, where, problems)
                    elif command[0].startswith("scripts/") and not os.path.exists(
                        os.path.join(source, command[0])
                    ):
                        problems.append(f"{where}: {command[0]} does not exist")
                    check_paths(command, source, where, problems)
                if run:
                    to_run.append((where, line))
    if not to_run:
        problems.append("no block is marked to run (" + RUN_MARK + ")")
    scratch = scratch_folder(source, binary_dir)
    for where, line in to_run:
        try:
            run = subprocess.run(
                ["bash", "-o", "pipefail", "-c", line],
                cwd=scratch,
                capture_output=True,
                text=True,
                timeout=120,
            )
        except subprocess.TimeoutExpired:
            problems.append(f"{where}: `{line}` ran past 120 s: do not mark it to run")
            continue
        if run.returncode not in (0, 1):
            last = (run.stderr.strip().splitlines() or [""])[-1]
            problems.append(f"{where}: `{line}` exited {run.returncode}: {last}")
    for problem in problems:
        print(problem)
    if not problems:
        shutil.rmtree(scratch)
    print(
        f"docs examples: {len(pages)} page(s), {checked} command(s) checked, "
        f"{len(to_run)} run, {len(problems)} problem(s); scratch folder {scratch}"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
