#!/usr/bin/env python3
"""Captures real GPU profiles of known shapes, for `roofline calibrate` and `roofline fidelity`.

Every case is one op of a known shape, run `--warmup` times outside the
profiler and then `--reps` times inside it, each repetition under a label that
names the case and its shape (torch `record_function`, JAX `TraceAnnotation`
and the jitted function's name, so the XLA module is `jit_<label>`). Each case
is its own profile file, so a file holds nothing but that op (no allocation or
random-number kernels) and the manifest maps case to file one to one.

  gemm        bf16, fp8 (torch._scaled_mm / an f8 dot, where the GPU has fp8:
              compute capability 8.9+), fp32 and tf32; square 256..16384 in
              powers of two, and decode shapes m in {1,8,16,32,64,128} x
              k, n in {4096, 8192}
  elementwise add, mul by a scalar, gelu, copy; bf16 and fp32 tensors of
              1 KiB .. 4 GiB in powers of 4 (crossing every L2)
  reduction   sum over the last dim and softmax, same sizes, rows of 4096
  attention   scaled dot-product attention, causal and not, bf16, (B,H,T,D)
  conv        2-D (ResNet-50 layers at batch 1 and 32) and 3-D, bf16, NCHW
  layernorm   over the last dim, bf16, (tokens, hidden)

Output, under --out (default profiles/):
  <framework>-<device>/<label>.pt.trace.json.gz   PyTorch (Kineto), record_shapes=True
  <framework>-<device>/<label>.xplane.pb          JAX (jax.profiler)
  manifest.json   per <framework>-<device>: the device, driver / CUDA / torch /
                  jax versions, the options, and every case: label, shape,
                  bytes held, status, file
<device> is the GPU's name ("h100-80gb-hbm3") or "cpu": --device cpu is for
smoke tests only, and a run asked for cuda on a machine without a GPU stops
rather than label CPU timings as GPU data.

Usage:
  python3 scripts/capture_gpu_profiles.py --out DIR [--framework torch|jax|both]
      [--device cuda|cpu] [--quick] [--max-bytes N] [--only REGEX]
      [--reps N] [--warmup N]
Exit status: 0 every case captured or skipped with a reason (too big, fp8 not
supported), 1 a case failed, 2 bad usage or no such device or framework.
docs/capture.md says how to run it on a GPU machine and what to do with the output.
The cases are in scripts/capture_gpu/cases.py, the framework runners in
scripts/capture_gpu/runners.py.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
import time

from capture_gpu.cases import all_cases, quick
from capture_gpu.runners import JaxRunner, Skip, TorchRunner, is_out_of_memory, slug
from capture_gpu.runners import upcasts_f8  # noqa: F401  read by tests/capture_smoke_test.py

MANIFEST = "manifest.json"
SCHEMA = "roofline-capture/1"
CHILD = "ROOFLINE_CAPTURE_CHILD"  # set in the per-framework processes of --framework both


# --- the run -------------------------------------------------------------------

def run_framework(framework, args, cases):
    runner = (TorchRunner if framework == "torch" else JaxRunner)(args.device)
    device, versions = runner.describe()
    sub = f"{framework}-{slug(runner.name) if args.device == 'cuda' else 'cpu'}"
    outdir = args.out / sub
    outdir.mkdir(parents=True, exist_ok=True)
    print(f"{framework}: {device['name']} ({args.device}) -> {outdir}", flush=True)
    records, failed = [], 0
    for i, case in enumerate(cases, 1):
        rel = f"{sub}/{case.label}{runner.suffix}"
        rec = {"label": case.label, "family": case.family, "op": case.op, "dtype": case.dtype,
               "shape": case.dims, "bytes": case.bytes}
        head = f"[{i}/{len(cases)}] {case.label}"
        try:
            limit = runner.free_bytes() * 0.9  # leave room for workspaces and the profiler
            if args.max_bytes is not None:
                limit = min(limit, args.max_bytes)
            if case.bytes > limit:
                raise Skip(f"needs {case.bytes / 2**30:.2f} GiB, over the "
                           f"{'--max-bytes' if args.max_bytes is not None and limit == args.max_bytes else 'free memory'}"
                           f" limit of {limit / 2**30:.2f} GiB")
            t0 = time.perf_counter()
            built = runner.build(case)
            runner.capture(case, built, args.reps, args.warmup, args.out / rel)
            rec.update(status="captured", file=rel, reps=args.reps, warmup=args.warmup)
            print(f"{head}: {args.reps} reps in {time.perf_counter() - t0:.1f} s -> {rel}", flush=True)
        except Skip as e:
            rec.update(status="skipped", reason=str(e))
            print(f"{head}: skipped: {e}", flush=True)
        except Exception as e:  # noqa: BLE001 -- one case's failure must not lose the others
            if is_out_of_memory(e):
                rec.update(status="skipped", reason=f"out of memory: {str(e).splitlines()[0]}")
                print(f"{head}: skipped: out of memory", flush=True)
            else:
                failed += 1
                rec.update(status="failed", reason=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                print(f"{head}: FAILED: {rec['reason']}", flush=True)
        finally:
            built = None
            runner.release()
        records.append(rec)
    run = {"framework": framework, "device": device, "versions": versions, "directory": sub,
           "options": {"quick": args.quick, "reps": args.reps, "warmup": args.warmup,
                       "max_bytes": args.max_bytes, "only": args.only},
           "finished_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "cases": records}
    update_manifest(args.out, run)
    n = {s: sum(r["status"] == s for r in records) for s in ("captured", "skipped", "failed")}
    print(f"{framework}: {n['captured']} captured, {n['skipped']} skipped, {n['failed']} failed", flush=True)
    return failed


def update_manifest(out, run):
    """Adds a run to manifest.json, keyed by its directory (framework and device).

    Frameworks and GPUs may be captured apart into one directory; a run of
    some cases again (--only) replaces those cases and keeps the others.
    """
    path = out / MANIFEST
    manifest = {"schema": SCHEMA, "runs": {}}
    if path.exists():
        try:
            old = json.loads(path.read_text())
            if old.get("schema") == SCHEMA:
                manifest = old
        except (OSError, ValueError) as e:
            print(f"capture: {path}: unreadable ({e}); writing a new one", file=sys.stderr)
    manifest["host"] = platform.node()
    old = manifest["runs"].get(run["directory"])
    if old:
        fresh = {c["label"] for c in run["cases"]}
        run["cases"] = [c for c in old["cases"] if c["label"] not in fresh] + run["cases"]
    manifest["runs"][run["directory"]] = run
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    tmp.replace(path)


def print_next_steps(out, device):
    manifest = json.loads((out / MANIFEST).read_text())
    files = [f"{out}/{d}/*{TorchRunner.suffix if r['framework'] == 'torch' else JaxRunner.suffix}"
             for d, r in sorted(manifest["runs"].items())
             if any(c["status"] == "captured" for c in r["cases"])]
    if not files:
        return
    print("\nNext:")
    if device == "cpu":
        print("  (CPU smoke data: it reads as a trace, but no chip's calibration should be fitted to it)")
    print(f"  roofline calibrate {' '.join(files)} -o {out}/calibration.json")
    print(f"  roofline fidelity {out} --calibration {out}/calibration.json")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="docs/capture.md: how to run it and what to do with the output")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("profiles"), help="output directory")
    ap.add_argument("--framework", choices=("torch", "jax", "both"), default="both")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cpu is for smoke tests; its files are named cpu")
    ap.add_argument("--quick", action="store_true", help="the smallest case of each sweep only")
    ap.add_argument("--max-bytes", type=float, default=None,
                    help="skip cases holding more than this many bytes (default: 90%% of free memory)")
    ap.add_argument("--only", default=None, help="a regex: the cases whose label it matches")
    ap.add_argument("--reps", type=int, default=10, help="timed repetitions per case (default 10)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed runs before the profiler starts")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    args = ap.parse_args(argv)
    if args.reps < 1 or args.warmup < 0:
        ap.error("--reps must be at least 1 and --warmup at least 0")
    if args.max_bytes is not None and args.max_bytes <= 0:
        ap.error("--max-bytes must be positive")
    if args.only is not None:
        try:
            re.compile(args.only)
        except re.error as e:
            ap.error(f"--only {args.only!r}: {e}")
    return args


def select(args):
    cases = all_cases()
    if args.quick:
        cases = quick(cases)
    if args.device == "cpu":
        # tf32 is a tensor-core mode: on a CPU it would be fp32 again under another name.
        cases = [c for c in cases if c.dtype != "tf32"]
    if args.only:
        cases = [c for c in cases if re.search(args.only, c.label)]
    return cases


def main(argv):
    args = parse_args(argv)
    cases = select(args)
    if args.list:
        for c in cases:
            print(f"{c.label}  {c.bytes / 2**20:.3f} MiB")
        return 0
    if not cases:
        print("capture: no case selected", file=sys.stderr)
        return 2
    frameworks = ["torch", "jax"] if args.framework == "both" else [args.framework]
    failed = 0
    for fw in frameworks:
        if len(frameworks) == 1:
            try:
                failed += run_framework(fw, args, cases)
            except SystemExit as e:  # no such framework or device: one line, exit 2
                print(e, file=sys.stderr)
                return 2
        else:
            # Each framework in a process of its own: torch and jax each load
            # their own CUDA libraries and allocators, which need not agree.
            child = [sys.executable, __file__] + argv_without_framework(argv) + ["--framework", fw]
            rc = subprocess.run(child, env={**os.environ, CHILD: "1"}).returncode
            if rc != 0:
                print(f"capture: the {fw} run exited with {rc}", file=sys.stderr)
                failed += 1
    if (args.out / MANIFEST).exists() and not os.environ.get(CHILD):
        print_next_steps(args.out, args.device)
    return 1 if failed else 0


def argv_without_framework(argv):
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--framework":
            skip = True
        elif not a.startswith("--framework="):
            out.append(a)
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
