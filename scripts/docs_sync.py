#!/usr/bin/env python3
"""Keep the figures docs/ shows from the code's own output true to the code.

Some pages paste what a command prints (a table of measured against
expected figures); a change to the model that moves a figure must move the
page in the same commit. Such text sits in the page between two markers,

    <!-- generated: NAME (scripts/docs_sync.py) -->
    ...
    <!-- end of generated: NAME -->

and this script knows, per page, the command whose output holds the same
blocks:

    docs/planner_validation.md  sharding_test "published runs: the tables*"
                                (the test prints its blocks with the markers)
    docs/fidelity.md            roofline fidelity ../shared/data/real --format md
                                (block "fidelity-real"; needs ../shared)

Usage, from anywhere:

    scripts/docs_sync.py check [planner|fidelity|all]   # exit 1 and a diff where a page differs
    scripts/docs_sync.py write [planner|fidelity|all]   # put the output in the page

--build DIR (default build/) says where the binaries are; --roofline and
--sharding-test name them directly (CTest does). Exit codes: 0 in sync (or
written), 1 a page differs, 2 a usage or run error, 77 nothing checked
because ../shared/data/real is absent (CTest counts it as skipped).
"""
import argparse
import difflib
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED_REAL = ROOT.parent / "shared" / "data" / "real"
BLOCK = re.compile(
    r"<!-- generated: (?P<name>[a-z0-9-]+) \(scripts/docs_sync\.py\) -->\n(?P<text>.*?)<!-- end of generated: (?P=name) -->\n",
    re.S)


class RunError(Exception):
    pass


def blocks(text):
    """The generated blocks of `text`, by name, in order."""
    found = {}
    for m in BLOCK.finditer(text):
        if m.group("name") in found:
            raise RunError(f"block {m.group('name')!r} appears twice")
        found[m.group("name")] = m.group("text")
    return found


def run(argv, cwd):
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise RunError(f"cannot run {argv[0]}: {e}") from e
    except subprocess.TimeoutExpired as e:
        raise RunError(f"{' '.join(map(str, argv))}: no output after 600 s") from e
    if done.returncode != 0:
        raise RunError(f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def planner_blocks(args):
    out = run([str(args.sharding_test), "published runs: the tables*"], ROOT)
    return blocks(out)


def fidelity_blocks(args):
    # Run from the repository root with the relative path, as the page's
    # command is given: the trace names in the table are that path.
    out = run([str(args.roofline), "fidelity", "../shared/data/real", "--format", "md"], ROOT)
    return {"fidelity-real": out}


PAGES = {
    "planner": ("docs/planner_validation.md", planner_blocks, False),
    "fidelity": ("docs/fidelity.md", fidelity_blocks, True),
}


def sync(name, args):
    """0 in sync or written, 1 differs, 77 skipped."""
    page, produce, needs_shared = PAGES[name]
    if needs_shared and not SHARED_REAL.is_dir():
        print(f"SKIPPED: {page}: {SHARED_REAL} is absent, so its figures cannot be made here")
        return 77
    path = ROOT / page
    text = path.read_text(encoding="utf-8")
    have = blocks(text)
    want = produce(args)
    if not want:
        raise RunError(f"{page}: the command gave no generated block")
    missing = [b for b in want if b not in have]
    if missing:
        raise RunError(f"{page}: no generated block named {', '.join(missing)} "
                       f"(mark where it goes with the two markers this script's help shows)")
    stale = [b for b in have if b not in want]
    if stale:
        raise RunError(f"{page}: block {', '.join(stale)} is made by no command here")
    differ = [b for b in want if have[b] != want[b]]
    if not differ:
        print(f"{page}: in sync ({len(want)} block{'s' if len(want) > 1 else ''})")
        return 0
    if args.action == "write":
        def put(m):
            n = m.group("name")
            return f"<!-- generated: {n} (scripts/docs_sync.py) -->\n{want[n]}<!-- end of generated: {n} -->\n"
        path.write_text(BLOCK.sub(put, text), encoding="utf-8")
        print(f"{page}: wrote {', '.join(differ)}")
        return 0
    for b in differ:
        sys.stdout.writelines(difflib.unified_diff(have[b].splitlines(True), want[b].splitlines(True),
                                                   f"{page} ({b})", f"what the code gives ({b})"))
    print(f"{page}: {len(differ)} block{'s differ' if len(differ) > 1 else ' differs'} from the code's output "
          f"({', '.join(differ)}); run scripts/docs_sync.py write {name} and read the prose around it")
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=["check", "write"])
    ap.add_argument("pages", nargs="?", default="all", choices=["all", *PAGES])
    ap.add_argument("--build", type=pathlib.Path, default=ROOT / "build")
    ap.add_argument("--roofline", type=pathlib.Path)
    ap.add_argument("--sharding-test", type=pathlib.Path)
    args = ap.parse_args()
    args.roofline = args.roofline or args.build / "roofline"
    args.sharding_test = args.sharding_test or args.build / "tests" / "sharding" / "sharding_test"
    names = list(PAGES) if args.pages == "all" else [args.pages]
    codes = []
    for name in names:
        try:
            codes.append(sync(name, args))
        except RunError as e:
            print(f"docs_sync: {e}", file=sys.stderr)
            return 2
    if 1 in codes:
        return 1
    return 77 if all(c == 77 for c in codes) else 0


if __name__ == "__main__":
    sys.exit(main())
