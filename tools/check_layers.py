#!/usr/bin/env python3
"""The layer-direction check (docs/design.md, "Layers"): every tracked source's #include lines and
every CMake target's link libraries must point the allowed way.

    python3 tools/check_layers.py --source DIR --links FILE      # exit 0 clean, 1 violations
    python3 tools/check_layers.py --source DIR --links FILE --self-test

FILE is written by tools/CMakeLists.txt at configure time: one line per project target,
"target<TAB>source dir<TAB>link libraries (;-separated)", and "alias<TAB>name<TAB>target" lines.
--self-test plants a reference -> traces include, a cli -> optimized/src include, a plugin ->
reference include, backends -> engine and records -> traces includes, and reference -> traces and
backends -> engine links into the real tree's lists and passes only when each is reported.
"""

import argparse
import os
import re
import subprocess
import sys

# Who may include or link whom. optimized is split: its public headers (optimized/include/qsa/cuda),
# its detail header (qsa/cuda/detail/, for instantiating kernel variants) and its private src/.
# plugin/ is the C plugin ABI header (qsacheck/plugin.h): it includes nothing of ours; the plugin
# loader (backends) and the example plugins (examples/) include it.
ALLOWED = {
    "plugin": {"plugin"},
    "examples": {"examples", "plugin"},
    "reference": {"reference"},
    "traces": {"traces", "reference"},
    # The checking engine judges what traces/ generates; callers hand it the backend.
    "engine": {"engine", "traces", "reference"},
    "optimized": {"optimized", "optimized-public", "optimized-detail", "reference"},
    "planted": {"planted", "reference", "optimized-public", "optimized-detail"},
    "backends": {"backends", "traces", "reference", "optimized-public", "planted", "plugin"},
    # Benchmark records read parsed JSON and throw qsa::InputError; the CLI reads their files.
    "records": {"records", "reference"},
    # GPU timing (shapes, graph replays, floor, copy ceiling, baselines): qsacheck bench and bench/.
    # Each shape is checked through the engine before it is timed.
    "timing": {"timing", "engine", "backends", "traces", "reference", "optimized-public", "optimized-detail"},
    "cli": {"cli", "timing", "engine", "backends", "records", "traces", "reference"},
    # fuzz_command_line fuzzes the command line itself, so it links the CLI's library.
    "fuzz": {"fuzz", "cli", "engine", "backends", "traces", "reference"},
    "properties": {"properties", "engine", "backends", "traces", "reference", "optimized-public"},
    # python/native: the reference and the codecs behind a C ABI for ctypes (qsacheck.reference),
    # and the CPU set of planted bugs, for showing a Python test finding one.
    "python": {"python", "engine", "traces", "reference", "planted"},
    "bench": {"bench", "timing", "engine", "backends", "traces", "reference", "optimized-public", "optimized-detail"},
}
# A layer's tests (<layer>/tests/) may also judge it through the engine: the layer's own code may not.
TESTS_MAY_USE = {"engine"}
# Private headers another layer may include, each for a stated reason.
PUBLISHED_PRIVATE = {
    "cli/src/command_line.hpp",  # the parse-only entry point that fuzz_command_line drives
}
# Where quoted includes are looked up after the including file's own folder (CMake include dirs).
INCLUDE_ROOTS = ["plugin/include", "reference/include", "traces/include", "traces/tests", "engine/include", "optimized/include",
                 "optimized/src", "planted/include", "planted/src", "backends/include", "timing/include", "records/include",
                 "properties", "bench", "fuzz", "cli/src", "python/native/include"]
SOURCE_SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".cc", ".in")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def layer_of(path):
    top = path.split("/", 1)[0]
    return top if top in ALLOWED else None


def is_test(path):
    parts = path.split("/")
    return len(parts) > 1 and parts[1] == "tests"


def allowed(layer, path):
    return ALLOWED[layer] | (TESTS_MAY_USE if is_test(path) else set())


def node_of(path):
    """The node a header belongs to, as a dependency: optimized's three parts apart."""
    if path.startswith("optimized/include/qsa/cuda/detail/"):
        return "optimized-detail"
    if path.startswith("optimized/include/"):
        return "optimized-public"
    return layer_of(path)


def is_private(path):
    """src/ of a layer: only that layer's own files may include it."""
    parts = path.split("/")
    return len(parts) > 2 and parts[1] == "src"


def resolve(includer, name, quoted, exists):
    candidates = [os.path.normpath(os.path.join(os.path.dirname(includer), name))] if quoted else []
    candidates += [root + "/" + name for root in INCLUDE_ROOTS]
    for c in candidates:
        if exists(c):
            return c
    return None


def include_violations(files, read, exists):
    found = []
    for path in files:
        layer = layer_of(path)
        if layer is None or not path.endswith(SOURCE_SUFFIXES):
            continue
        for number, line in enumerate(read(path).splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(path, m.group(2), m.group(1) == '"', exists)
            if target is None:
                continue  # a system or third-party header
            node = node_of(target)
            where = f"{path}:{number}: {line.strip()}"
            if node is None:
                continue
            if node not in allowed(layer, path):
                found.append(f"{where}: {layer} -> {node} ({target}) is not an allowed direction")
            elif is_private(target) and target.split("/")[0] != layer and target not in PUBLISHED_PRIVATE:
                found.append(f"{where}: {target} is private to {target.split('/')[0]}/")
    return found


def read_links(path):
    targets, aliases = {}, {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "alias":
                aliases[fields[1]] = fields[2]
            elif len(fields) == 3:
                targets[fields[0]] = (fields[1], [x for x in fields[2].split(";") if x])
    return targets, aliases


def link_node(name, targets):
    if name == "qsa_cuda_kernel_variants":
        return "optimized-detail"
    layer = layer_of(targets[name][0])
    return "optimized-public" if layer == "optimized" else layer


def link_violations(targets, aliases):
    found = []
    for name, (folder, libs) in sorted(targets.items()):
        layer = layer_of(folder)
        if layer is None:
            continue
        for lib in libs:
            lib = re.sub(r"^\$<LINK_ONLY:(.*)>$", r"\1", lib)
            lib = aliases.get(lib, lib)
            if lib not in targets:
                continue  # a third-party or system library
            node = link_node(lib, targets)
            if layer_of(targets[lib][0]) == layer:
                continue
            if node not in allowed(layer, folder + "/"):
                found.append(f"link: {name} ({folder}) -> {lib} ({node}): {layer} -> {node} is not an allowed direction")
    return found


def tracked_files(source):
    out = subprocess.run(["git", "-C", source, "ls-files"], capture_output=True, text=True, check=True).stdout
    return out.split()


def check(source, links, extra_files=None, extra_links=None):
    extra_files = extra_files or {}
    files = tracked_files(source) + list(extra_files)

    def read(path):
        if path in extra_files:
            return extra_files[path]
        with open(os.path.join(source, path), errors="replace") as f:
            return f.read()

    def exists(path):
        return path in extra_files or os.path.isfile(os.path.join(source, path))

    targets, aliases = read_links(links)
    for name, (folder, libs) in (extra_links or {}).items():
        targets[name] = (folder, libs)
    return include_violations(files, read, exists) + link_violations(targets, aliases)


def self_test(source, links):
    """Plants seven wrong edges and passes only when the check reports each of them."""
    planted_files = {
        "reference/src/planted_wrong_edge.cpp": '#include "qsa/traces/scenario.hpp"\n',
        "cli/src/planted_wrong_edge.cpp": '#include "kernels/metadata_params.hpp"\n',
        "plugin/include/qsacheck/planted_wrong_edge.h": '#include "qsa/types.hpp"\n',
        "backends/src/planted_wrong_edge.cpp": '#include "qsa/engine/check_engine.hpp"\n',
        "records/src/planted_wrong_edge.cpp": '#include "qsa/traces/json_reader.hpp"\n',
    }
    planted_links = {"planted_wrong_edge": ("reference", ["qsa::traces"]),
                     "planted_wrong_engine_edge": ("backends", ["qsa::engine"])}
    clean = check(source, links)
    found = check(source, links, planted_files, planted_links)
    new = [v for v in found if v not in clean]
    for v in new:
        print("reported:", v)
    expected = [
        ("reference/src/planted_wrong_edge.cpp", "reference -> traces"),
        ("cli/src/planted_wrong_edge.cpp", "cli -> optimized"),
        ("plugin/include/qsacheck/planted_wrong_edge.h", "plugin -> reference"),
        ("link: planted_wrong_edge", "reference -> traces"),
        ("backends/src/planted_wrong_edge.cpp", "backends -> engine"),
        ("records/src/planted_wrong_edge.cpp", "records -> traces"),
        ("link: planted_wrong_engine_edge", "backends -> engine"),
    ]
    missing = [e for e in expected if not any(v.startswith(e[0]) and e[1] in v for v in new)]
    for path, edge in missing:
        print(f"NOT REPORTED: {edge} planted in {path}")
    return 1 if missing or len(new) != len(expected) else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the repository root")
    parser.add_argument("--links", required=True, help="the target list tools/CMakeLists.txt wrote")
    parser.add_argument("--self-test", action="store_true", help="prove the check reports planted wrong edges")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.source, args.links)
    violations = check(args.source, args.links)
    for v in violations:
        print(v)
    print(f"{len(violations)} layer violations" if violations else "layers: every include and link points an allowed way")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
