#!/usr/bin/env python3
"""Every `e2e/...` path the tree names exists, and every end-to-end stage is one CI runs:

  - each `e2e/...` path in a text file of the repository (scripts/test.sh's stage table, the
    Makefile, README.md, docs/, dashboards/, config/, the e2e scripts and helpers themselves,
    comments in Sources/ and Tests/) names a file or folder that is there (a `*` in it must
    match something; `../e2e/...` in a document is taken from that document's folder);
  - each stage of scripts/test.sh whose command is a script names one that is there and
    executable;
  - each stage script under e2e/ (every `*.sh` but the shared e2e/lib.sh and e2e/netns.sh) is a
    stage of scripts/test.sh.

scripts/test.sh fails a run whose stage table names a missing script (it once skipped such a
stage without a word); this says so at lint time, and catches the documents and helpers too.

    scripts/check-e2e-paths.py [REPO_DIR]

Fails (exit 1, one line per problem: file, line, path, why). Run by the lint stage (`make lint`).
"""

import os
import pathlib
import re
import sys

# A path into e2e/, not part of a longer word (foo-e2e/...). One after a folder is taken from
# the repository's root too: the stage scripts run there, so `$PWD/e2e/...` is one of ours.
PATH = re.compile(r"(?<![\w-])((?:\.\./)*e2e/[\w./*-]*)")
STAGE = re.compile(r'^\s*"([\w-]+)\|\d+\|([^"]*)"')
SHARED = {"e2e/lib.sh", "e2e/netns.sh"}
SKIPPED_DIRS = {".git", ".build", ".build-install", ".swiftpm", "node_modules"}


def text_files(repo):
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            path = pathlib.Path(folder) / name
            try:
                yield path, path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # not text


def named_paths(repo):
    """(file, line number, path as written, resolved path) for every e2e path in the tree."""
    for source, text in text_files(repo):
        for number, line in enumerate(text.split("\n"), start=1):
            for match in PATH.finditer(line):
                written = match.group(1).rstrip(".,:;")
                if written.rstrip("/").endswith("e2e"):
                    continue  # the folder itself
                base = source.parent if written.startswith("../") else repo
                yield source, number, written, base / written


def exists(path):
    if "*" in str(path):
        return any(path.parent.glob(path.name)) if "*" not in str(path.parent) else True
    return path.exists()


def stages(repo):
    """(line number, name, script) of each stage of scripts/test.sh whose command is a script."""
    text = (repo / "scripts" / "test.sh").read_text(encoding="utf-8")
    for number, line in enumerate(text.split("\n"), start=1):
        match = STAGE.match(line)
        if not match:
            continue
        words = [w for w in match.group(2).split() if w != "env" and "=" not in w]
        if words and "/" in words[0]:
            yield number, match.group(1), words[0]


def check(repo):
    problems = []
    count = 0
    for source, number, written, resolved in named_paths(repo):
        count += 1
        if not exists(resolved):
            problems.append(f"{source.relative_to(repo)}:{number}: {written}: no such file")
    staged = set()
    for number, name, script in stages(repo):
        staged.add(script)
        path = repo / script
        if not path.is_file() or not os.access(path, os.X_OK):
            problems.append(f"scripts/test.sh:{number}: stage {name}: {script}: "
                            "no such script, or not executable")
    stage_scripts = sorted(str(p.relative_to(repo)) for p in (repo / "e2e").rglob("*.sh"))
    for script in stage_scripts:
        if script not in SHARED and script not in staged:
            problems.append(f"{script}: not a stage of scripts/test.sh")
    return problems, count, len(staged)


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems, count, staged = check(repo)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-e2e-paths: {len(problems)} problem(s)")
        return 1
    print(f"check-e2e-paths: {count} e2e paths named in the tree exist; {staged} stage scripts "
          "exist, and every e2e stage script is a stage")
    return 0


if __name__ == "__main__":
    sys.exit(main())
