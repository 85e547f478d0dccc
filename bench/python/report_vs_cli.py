"""roofline.report(path) against `roofline report PATH` of the same build.

    PYTHONPATH=build/python python bench/python/report_vs_cli.py --cli build/roofline [--reps 15] [TRACE...]

Default traces: examples/profiles and, when ../shared/data/real is beside
the repository, its largest PyTorch traces. For each trace: the median wall
time of the CLI (a subprocess, text output to /dev/null: what a user waits
for), of roofline.report(path) (read and match; nothing rendered), and of
roofline.report(path).to_json(). One warm-up run of each first (file cache).
The target (issue 13): report() within 10% of the CLI.
"""

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

import roofline

REPO = pathlib.Path(__file__).resolve().parents[2]
REAL = REPO.parent / "shared" / "data" / "real"
LARGE = ["hta/a100-80gb_16rank_rank0.json.gz", "kineto/v100_resnet50_worker0.pt.trace.json.gz",
         "tracelens/b200x8_vllm_eager_rank0.pt.trace.json.gz"]


def median_s(run, reps):
    run()  # warm-up: file cache, first-touch allocations
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="*")
    parser.add_argument("--cli", default=os.environ.get("ROOFLINE_CLI") or shutil.which("roofline"))
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    if not args.cli:
        sys.exit("no roofline command: pass --cli build/roofline")
    traces = args.traces or [str(REPO / "examples" / "profiles")] + [
        str(REAL / f) for f in LARGE if (REAL / f).exists()]

    print(f"{'trace':72} {'MB':>6} {'CLI ms':>8} {'report() ms':>11} {'ratio':>6} {'+to_json ms':>11}")
    for trace in traces:
        size = sum(p.stat().st_size for p in pathlib.Path(trace).rglob("*") if p.is_file()) \
            if os.path.isdir(trace) else os.path.getsize(trace)

        def cli():
            subprocess.run([args.cli, "report", trace], stdout=subprocess.DEVNULL, check=True)

        cli_s = median_s(cli, args.reps)
        py_s = median_s(lambda: roofline.report(trace), args.reps)
        json_s = median_s(lambda: roofline.report(trace).to_json(), args.reps)
        name = os.path.relpath(trace, REPO)
        print(f"{name:72} {size / 1e6:6.2f} {cli_s * 1e3:8.1f} {py_s * 1e3:11.1f} {py_s / cli_s:6.2f} "
              f"{json_s * 1e3:11.1f}")


if __name__ == "__main__":
    main()
