#!/usr/bin/env python3
"""The module graph is a check, not a hope: every edge between the package's own modules, as
Package.swift declares it and as each module's sources import it, must be one that the graph in
docs/architecture.md allows (the fenced block marked `module-graph`, written once, read here).

    scripts/check-module-graph.py [PACKAGE_DIR]

Fails (exit 1, one line per edge) on:
  - a dependency in Package.swift between two of our modules that the graph does not allow;
  - an import in a module's sources of one of our modules that the graph does not allow, or
    that its Package.swift entry does not declare (SwiftPM lets a module import what a
    dependency depends on: an edge nobody declared);
  - a module of Package.swift with no row in the graph, or a row naming no module.
Run by the lint stage (`make lint`).
"""

import pathlib
import re
import sys

TARGET_KINDS = ("target", "executableTarget", "testTarget", "systemLibrary", "plugin")
IMPORT = re.compile(
    r"^\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+)*"
    r"(?:public\s+|package\s+|internal\s+|fileprivate\s+|private\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.MULTILINE,
)


def balanced(text, start):
    """The text from `start` (an opening bracket) to its matching closing bracket."""
    pairs = {"(": ")", "[": "]"}
    stack = []
    in_string = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if char == "\\":
                continue
            if char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in pairs:
            stack.append(pairs[char])
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                return text[start : index + 1]
    raise ValueError(f"unbalanced bracket at offset {start}")


def strip_comments(swift):
    return re.sub(r"//[^\n]*", "", swift)


def package_targets(package_swift):
    """{name: (kind, path or None, [our-or-external dependency names])} from Package.swift."""
    text = strip_comments(package_swift)
    targets = {}
    for match in re.finditer(r"\.(%s)\(" % "|".join(TARGET_KINDS), text):
        block = balanced(text, match.end() - 1)
        name = re.search(r'name:\s*"([^"]+)"', block)
        if not name:
            continue
        path = re.search(r'path:\s*"([^"]+)"', block)
        dependencies = []
        found = re.search(r"dependencies:\s*\[", block)
        if found:
            listed = balanced(block, found.end() - 1)
            # Products of other packages are not our modules: drop them before reading names.
            ours = re.sub(r"\.product\([^)]*\)", "", listed)
            ours = re.sub(r"\.(?:byName|target)\(\s*name:\s*", "", ours)
            dependencies = re.findall(r'"([^"]+)"', ours)
        plugins = re.search(r"plugins:\s*\[", block)
        if plugins:
            dependencies += re.findall(r'"([^"]+)"', balanced(block, plugins.end() - 1))
        targets[name.group(1)] = (match.group(1), path.group(1) if path else None, dependencies)
    return targets


def allowed_graph(architecture_md):
    """{module: set of our modules it may import} from the `module-graph` block."""
    block = re.search(r"^```module-graph\n(.*?)^```", architecture_md, re.MULTILINE | re.DOTALL)
    if not block:
        raise ValueError("docs/architecture.md has no ```module-graph block")
    graph = {}
    for number, line in enumerate(block.group(1).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" not in line:
            raise ValueError(f"module-graph line {number}: expected 'Module: Allowed ...': {line}")
        module, allowed = line.split(":", 1)
        graph[module.strip()] = set(allowed.split())
    return graph


def source_directory(root, name, kind, path):
    if path:
        return root / path
    if kind == "testTarget":
        return root / "Tests" / name
    if kind == "plugin":
        return root / "Plugins" / name
    return root / "Sources" / name


def imports_of(directory, root):
    """{module imported: first file:line importing it} over a module's Swift sources."""
    found = {}
    for source in sorted(directory.rglob("*.swift")):
        text = source.read_text(encoding="utf-8")
        for match in IMPORT.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.setdefault(match.group(1), f"{source.relative_to(root)}:{line}")
    return found


def violations(root):
    targets = package_targets((root / "Package.swift").read_text(encoding="utf-8"))
    graph = allowed_graph((root / "docs" / "architecture.md").read_text(encoding="utf-8"))
    ours = set(targets)
    problems = []
    for name in sorted(ours - set(graph)):
        problems.append(
            f"{name}: a module of Package.swift with no row in docs/architecture.md's module-graph"
        )
    for name in sorted(set(graph) - ours):
        problems.append(f"{name}: a module-graph row in docs/architecture.md names no module")
    for module in sorted(set().union(*graph.values()) - ours):
        problems.append(f"{module}: allowed in docs/architecture.md's module-graph, not a module")
    for name, (kind, path, dependencies) in sorted(targets.items()):
        allowed = graph.get(name, set())
        declared = {dependency for dependency in dependencies if dependency in ours}
        for dependency in sorted(declared - allowed):
            problems.append(
                f"Package.swift: {name} depends on {dependency}, an edge the module graph in "
                f"docs/architecture.md does not allow"
            )
        directory = source_directory(root, name, kind, path)
        if not directory.is_dir():
            continue
        for module, where in sorted(imports_of(directory, root).items()):
            if module not in ours or module == name:
                continue
            if module not in allowed:
                problems.append(
                    f"{where}: {name} imports {module}, an edge the module graph in "
                    f"docs/architecture.md does not allow"
                )
            elif module not in declared:
                problems.append(
                    f"{where}: {name} imports {module}, which its Package.swift entry does not "
                    f"declare"
                )
    return problems


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    try:
        problems = violations(root)
    except (OSError, ValueError) as error:
        print(f"netquality: error: module graph: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"netquality: error: module graph: {problem}", file=sys.stderr)
    if problems:
        return 1
    print("module graph: every edge allowed (docs/architecture.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
