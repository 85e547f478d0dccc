#!/usr/bin/env python3
"""Keep what docs/ shows of the code's own output true to the code.

Some pages paste what a command prints (a table of measured against
expected figures, a command's usage line); a change that moves it must move
the page in the same commit. Such text sits in a page between two markers,

    <!-- generated: NAME (scripts/docs_sync.py) -->
    ...
    <!-- end of generated: NAME -->

and this script knows which command makes each block:

    planner   published-runs-*   sharding_test "published runs: the tables*"
                                 (the test prints its blocks with the markers);
                                 published-runs-summary is its published-runs-targets
                                 again, for the README
    fidelity  fidelity-real      roofline fidelity ../shared/data/real --format md
                                 (needs ../shared)
              fidelity-summary   the first two paragraphs of fidelity-real (the
                                 README's)
              fidelity-in-sample roofline calibrate ../shared/data/real -o CAL, then
                                 roofline fidelity ../shared/data/real --calibration CAL
                                 --format md: its first two lines and its chip rows
    usage     usage-COMMAND      roofline COMMAND --help, its usage line
                                 wrapped at 100 columns
    examples  example-NAME       the README's examples: the command line,
                                 then what it prints (EXAMPLES below)

A block may sit in any page of docs/ or in README.md, once.

Usage, from anywhere:

    scripts/docs_sync.py check [planner|fidelity|usage|all]   # exit 1 and a diff where a page differs
    scripts/docs_sync.py write [planner|fidelity|usage|all]   # put the output in the pages

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
import tempfile
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED_REAL = ROOT.parent / "shared" / "data" / "real"
BLOCK = re.compile(
    r"<!-- generated: (?P<name>[a-z0-9-]+) \(scripts/docs_sync\.py\) -->\n(?P<text>.*?)<!-- end of generated: (?P=name) -->(\n|\Z)",
    re.S)
# Any marker, well formed or not: each must belong to a block BLOCK reads.
MARKER = re.compile(r"<!-- (?:end of )?generated:")
USAGE_WIDTH = 100
# The commands whose usage line a page shows (roofline COMMAND --help).
USAGE_COMMANDS = ["report", "stats", "merge", "hlo", "plan", "calibrate", "fidelity", "diff"]


class RunError(Exception):
    pass


def blocks(text, where):
    """The generated blocks of `text`, by name."""
    found = {}
    if len(MARKER.findall(text)) != 2 * len(BLOCK.findall(text)):
        raise RunError(f"{where}: a generated-block marker that pairs with no other (names are [a-z0-9-]+; "
                       f"the two markers this script's help shows)")
    for m in BLOCK.finditer(text):
        if m.group("name") in found:
            raise RunError(f"{where}: block {m.group('name')!r} appears twice")
        found[m.group("name")] = m.group("text")
    return found


def run(argv, cwd=ROOT):
    try:
        done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=600)
    except OSError as e:
        raise RunError(f"cannot run {argv[0]}: {e}") from e
    except subprocess.TimeoutExpired as e:
        raise RunError(f"{' '.join(map(str, argv))}: no output after 600 s") from e
    if done.returncode != 0:
        raise RunError(f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def planner_blocks(args):
    made = blocks(run([args.sharding_test, "published runs: the tables*"]), "sharding_test's output")
    # The README shows the targets table too; a block sits in one page, so
    # its copy there has a name of its own.
    if "published-runs-targets" in made:
        made["published-runs-summary"] = made["published-runs-targets"]
    return made


def fidelity_blocks(args):
    # Run from the repository root with the relative path, as the page's
    # command is given: the trace names in the table are that path.
    out = {"fidelity-real": run([args.roofline, "fidelity", "../shared/data/real", "--format", "md"])}
    # The README's: the counts and the overall medians and 90th percentiles.
    out["fidelity-summary"] = "\n\n".join(out["fidelity-real"].split("\n\n")[:2]).rstrip("\n") + "\n"
    # The same benchmark judging a fit on all the ops it is tested on.
    with tempfile.TemporaryDirectory() as tmp:
        cal = pathlib.Path(tmp) / "real.cal.json"
        run([args.roofline, "calibrate", "../shared/data/real", "-o", cal])
        md = run([args.roofline, "fidelity", "../shared/data/real", "--calibration", cal, "--format", "md"])
    paragraphs = md.split("\n\n")
    lines = md.splitlines()
    head = next((i for i, line in enumerate(lines) if line.startswith("| trace | chip |")), None)
    if head is None:
        raise RunError("roofline fidelity --format md printed no table of traces")
    table = lines[head:head + 2] + [line for line in lines if line.startswith(("| chip ", "| overall |"))]
    out["fidelity-in-sample"] = "\n\n".join(paragraphs[:2]) + "\n\n" + "\n".join(table) + "\n"
    return out


def wrap_usage(line, width=USAGE_WIDTH):
    """A usage line broken before whole options, continuation lines under
    the first argument: 'roofline plan --model M [--seq L]' keeps each
    [...] group and each '--flag VALUE' pair on one line."""
    words = line.split(" ")
    head = " ".join(words[:2]) + " "  # "roofline plan "
    items, depth, cur = [], 0, []
    for w in words[2:]:
        # A new item starts at depth 0 with '[' or '--', unless it is the
        # value of the '--flag' before it.
        starts = depth == 0 and (w.startswith("[") or w.startswith("--")) and cur
        if starts:
            items.append(" ".join(cur))
            cur = []
        cur.append(w)
        depth += w.count("[") - w.count("]")
    if cur:
        items.append(" ".join(cur))
    lines, now = [], head
    for item in items:
        if now.strip() != head.strip() and len(now) + len(item) > width:
            lines.append(now.rstrip())
            now = " " * len(head)
        now += item + " "
    lines.append(now.rstrip())
    return "\n".join(lines)


def usage_blocks(args):
    out = {}
    for command in USAGE_COMMANDS:
        first = run([args.roofline, command, "--help"]).splitlines()[0]
        if not first.startswith("usage: roofline " + command):
            raise RunError(f"roofline {command} --help does not begin with its usage line: {first!r}")
        out["usage-" + command] = "```sh\n" + wrap_usage(first[len("usage: "):]) + "\n```\n"
    return out


# The README's examples: name, the command after `roofline`, and the lines
# of its output to show (a slice: the report's header, not its tables).
EXAMPLES = [
    ("example-predict", ["predict", "matmul", "--chip", "tpu-v5e", "--m", "32768", "--k", "8192", "--n", "32768"],
     slice(None)),
    ("example-report", ["report", "examples/profiles/resnet50_v100_train_step.pt.trace.json.gz"],
     slice(2, 5)),
]


def example_blocks(args):
    out = {}
    for name, argv, lines in EXAMPLES:
        shown = run([args.roofline, *argv]).splitlines()[lines]
        text = "\n".join(["$ roofline " + " ".join(argv), *shown]).rstrip()
        if lines.stop is not None:
            text += "\n..."
        out[name] = "```console\n" + text + "\n```\n"
    return out


# name: (how its blocks are made, whether it needs ../shared/data/real,
# the names of the blocks it makes)
PRODUCERS = {
    "planner": (planner_blocks, False, re.compile(r"published-runs-[a-z-]+")),
    "fidelity": (fidelity_blocks, True, re.compile(r"fidelity-(real|summary|in-sample)")),
    "usage": (usage_blocks, False, re.compile(r"usage-[a-z]+")),
    "examples": (example_blocks, False, re.compile(r"example-[a-z]+")),
}


def pages():
    return sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def sync(names, args):
    """0 in sync or written, 1 differs, 77 nothing checked."""
    want, ran = {}, []
    for name in names:
        produce, needs_shared, _ = PRODUCERS[name]
        if needs_shared and not SHARED_REAL.is_dir():
            print(f"SKIPPED: {name}: {SHARED_REAL} is absent, so its blocks cannot be made here")
            continue
        made = produce(args)
        if not made:
            raise RunError(f"{name}: the command gave no generated block")
        want.update(made)
        ran.append(name)
    if not want:
        return 77
    where, have = {}, {}  # block name -> its page, its text there
    texts, crlf = {}, set()
    for page in pages():
        raw = page.read_bytes()
        if b"\r\n" in raw:
            crlf.add(page)
        text = raw.decode("utf-8").replace("\r\n", "\n")
        texts[page] = text
        for b, block_text in blocks(text, page.relative_to(ROOT)).items():
            if b in where:
                raise RunError(f"block {b!r} is in both {where[b].relative_to(ROOT)} and {page.relative_to(ROOT)}")
            if not any(names_made.fullmatch(b) for _, _, names_made in PRODUCERS.values()):
                raise RunError(f"{page.relative_to(ROOT)}: no command here makes a block named {b!r}")
            where[b], have[b] = page, block_text
    # A block of a producer that ran but no longer makes it (a command or a
    # table removed) is stale.
    stale = [b for b in where if b not in want and any(PRODUCERS[n][2].fullmatch(b) for n in ran)]
    if stale:
        raise RunError(f"no command makes the generated block{'s' if len(stale) > 1 else ''} "
                       f"{', '.join(f'{b} ({where[b].relative_to(ROOT)})' for b in stale)} any more: remove it")
    missing = [b for b in want if b not in where]
    if missing:
        raise RunError(f"no page holds the generated block{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                       f"(mark where it goes with the two markers this script's help shows)")
    differ = [b for b in where if b in want and have[b] != want[b]]
    if not differ:
        print(f"in sync: {len(want)} generated block{'s' if len(want) > 1 else ''} ({', '.join(ran)})")
        return 0
    if args.action == "write":
        for page in sorted({where[b] for b in differ}):
            def put(m):
                n = m.group("name")
                text = want.get(n, m.group("text"))
                return f"<!-- generated: {n} (scripts/docs_sync.py) -->\n{text}<!-- end of generated: {n} -->\n"
            text = BLOCK.sub(put, texts[page])
            # Keep the page's line endings.
            page.write_bytes((text.replace("\n", "\r\n") if page in crlf else text).encode("utf-8"))
        print(f"wrote {', '.join(f'{b} ({where[b].relative_to(ROOT)})' for b in differ)}")
        return 0
    for b in differ:
        page = where[b].relative_to(ROOT)
        sys.stdout.writelines(difflib.unified_diff(have[b].splitlines(True), want[b].splitlines(True),
                                                   f"{page} ({b})", f"what the code gives ({b})"))
    print(f"{len(differ)} generated block{'s differ' if len(differ) > 1 else ' differs'} from the code's output "
          f"({', '.join(f'{b} in {where[b].relative_to(ROOT)}' for b in differ)}); run scripts/docs_sync.py write "
          f"and read the prose around them")
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("action", choices=["check", "write"])
    ap.add_argument("what", nargs="?", default="all", choices=["all", *PRODUCERS])
    ap.add_argument("--build", type=pathlib.Path, default=ROOT / "build")
    ap.add_argument("--roofline", type=pathlib.Path)
    ap.add_argument("--sharding-test", type=pathlib.Path)
    args = ap.parse_args()
    args.roofline = args.roofline or args.build / "roofline"
    args.sharding_test = args.sharding_test or args.build / "tests" / "sharding" / "sharding_test"
    try:
        return sync(list(PRODUCERS) if args.what == "all" else [args.what], args)
    except RunError as e:
        print(f"docs_sync: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
