#!/usr/bin/env python3
"""Every relative link in README.md and docs/*.md resolves: the file (or folder) it names
exists, and an anchor (`file.md#section`, `#section`) names a heading of that Markdown file,
spelt as GitHub spells it (lower case, punctuation dropped, spaces as hyphens, a repeated
heading numbered -1, -2, ...). Links to other sites (https:, mailto:, ...) are not followed.

    scripts/check-doc-links.py [REPO_DIR]

Fails (exit 1, one line per link: file, line, target, why). Run by the lint stage (`make lint`).
"""

import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def lines_outside_code(text):
    """The file's lines with their numbers, fenced code blocks left out."""
    fenced = False
    for number, line in enumerate(text.split("\n"), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation dropped."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    for _, line in lines_outside_code(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def check(repo):
    problems = []
    files = [repo / "README.md"] + sorted((repo / "docs").glob("*.md"))
    cache = {}
    for source in files:
        text = source.read_text(encoding="utf-8")
        for number, line in lines_outside_code(text):
            line = re.sub(r"`[^`]*`", "", line)
            for match in LINK.finditer(line):
                target = match.group(1)
                if SCHEME.match(target):
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = (source.parent / file_part).resolve() if file_part else source
                where = f"{source.relative_to(repo)}:{number}: {target}"
                if not resolved.exists():
                    problems.append(f"{where}: no such file")
                    continue
                if not anchor:
                    continue
                if resolved.suffix != ".md" or resolved.is_dir():
                    problems.append(f"{where}: an anchor into a file that is not Markdown")
                    continue
                if resolved not in cache:
                    cache[resolved] = anchors(resolved)
                if anchor not in cache[resolved]:
                    problems.append(f"{where}: no heading with that anchor")
    return problems, len(files)


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems, count = check(repo)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-doc-links: {len(problems)} broken link(s) in {count} files")
        return 1
    print(f"check-doc-links: every relative link in {count} files resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
