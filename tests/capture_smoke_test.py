#!/usr/bin/env python3
"""Smoke test of scripts/capture_gpu_profiles.py on the CPU with JAX (CTest `capture_smoke`).

Runs 16 cases of the quick set (the convolutions left out: 10-20 s each on
XLA:CPU in bf16; `--quick` alone runs them too) with 2 timed reps, and checks:
  * exit 0; manifest.json names the device cpu and every case, each captured
    into jax-cpu/<label>.xplane.pb or skipped with a reason (fp8 on a CPU);
  * every file reads with `roofline stats`, holds the module jit_<label>, and
    each of its ops ran exactly --reps times (the warmup stayed outside);
  * `roofline report --chip h100-sxm` reads every file, and on each GEMM
    predicts 2*m*k*n FLOPs per rep for the dot: the label's shape is the
    traced shape;
  * running one case again replaces it in the manifest and keeps the others;
  * --device cuda on a machine whose jax has no GPU stops with exit 2 and
    does not write GPU-named files; --framework torch without torch stops
    with exit 2 and says why (with torch: it captures one case on the CPU);
  * the probe that keeps an fp8 GEMM XLA would upcast out of a GPU run sees
    XLA:CPU's upcast f8 dot and no upcast in a bf16 one.
Exit: 0 pass, 1 fail, 77 skipped (no python with jax, no roofline binary).
jax comes from the first of --python, $ROOFLINE_CAPTURE_PYTHON,
.venv/bin/python (scripts/venv.sh) and this interpreter that imports it.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "capture_gpu_profiles.py"
SKIP = 77
REPS = 2
# One case or more of every family but the convolutions, and fp8 for its skip.
ONLY = r"^(matmul_(bf16|fp32|fp8)_m256_|matmul_bf16_m1_|add_|mul_scalar_fp32|gelu_bf16|copy_fp32|sum_|softmax_|sdpa|layer_norm)"


def find_python(explicit):
    for c in (explicit, os.environ.get("ROOFLINE_CAPTURE_PYTHON"), str(REPO / ".venv/bin/python"), sys.executable):
        if c and pathlib.Path(c).exists():
            if subprocess.run([c, "-c", "import jax"], capture_output=True).returncode == 0:
                return c
    return None


class Check:
    def __init__(self):
        self.failures = 0

    def __call__(self, ok, what):
        if not ok:
            self.failures += 1
            print(f"FAIL: {what}", flush=True)
        return ok


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def check_capture(python, roofline, out, check):
    t = run([python, SCRIPT, "--device", "cpu", "--quick", "--framework", "jax", "--only", ONLY,
             "--reps", REPS, "--warmup", 1, "--out", out])
    print(t.stdout, t.stderr, sep="", flush=True)
    if not check(t.returncode == 0, f"capture exited {t.returncode}"):
        return
    check("roofline calibrate" in t.stdout and "roofline fidelity" in t.stdout,
          "the next commands are printed")
    manifest = json.loads((out / "manifest.json").read_text())
    check(list(manifest["runs"]) == ["jax-cpu"], f"runs {list(manifest['runs'])}, expected jax-cpu")
    jax_run = manifest["runs"]["jax-cpu"]
    check(jax_run["device"]["kind"] == "cpu" and jax_run["directory"] == "jax-cpu",
          f"the run is named cpu: {jax_run['device']}, {jax_run['directory']}")
    cases = jax_run["cases"]
    listed = run([python, SCRIPT, "--device", "cpu", "--quick", "--only", ONLY, "--list"]).stdout.split("\n")
    listed = [line.split()[0] for line in listed if line.strip()]
    check([c["label"] for c in cases] == listed and len(listed) == 16,
          f"the manifest's cases {[c['label'] for c in cases]} are --list's {listed} (16)")
    for c in cases:
        label = c["label"]
        if c["status"] == "skipped":
            check(c["dtype"] == "fp8" and "8.9" in c["reason"], f"{label}: skipped: {c['reason']}")
            continue
        if not check(c["status"] == "captured", f"{label}: {c['status']}: {c.get('reason')}"):
            continue
        path = out / c["file"]
        check(c["file"] == f"jax-cpu/{label}.xplane.pb" and path.exists(), f"{label}: file {c['file']}")
        s = run([roofline, "stats", path, "--format", "json"])
        if not check(s.returncode == 0, f"{label}: roofline stats: {s.stderr.strip()}"):
            continue
        ops = [o for o in json.loads(s.stdout)["ops"] if o["module"] == f"jit_{label}"]
        check(ops, f"{label}: no op of module jit_{label} in the profile")
        for o in ops:
            check(o["count"] == REPS, f"{label}: {o['name']} ran {o['count']} times, not {REPS}")
        r = run([roofline, "report", path, "--chip", "h100-sxm", "--format", "json"])
        if not check(r.returncode == 0, f"{label}: roofline report: {r.stderr.strip()}"):
            continue
        if c["op"] == "matmul":
            d = c["shape"]
            # XLA:CPU also converts bf16 operands to f32 (1 FLOP an element): the dot's alone.
            flops = sum(o["flops"] for o in json.loads(r.stdout)["ops"]
                        if o.get("predicted") and o.get("hlo_category") == "matmul")
            want = 2 * d["m"] * d["k"] * d["n"] * REPS
            check(abs(flops - want) <= 0.01 * want, f"{label}: predicted {flops} FLOPs, expected {want}")
    captured = sum(c["status"] == "captured" for c in cases)
    print(f"{captured} of {len(cases)} cases captured and read back", flush=True)


def check_rerun(python, out, check):
    """A run of one case again replaces that case in the manifest and keeps the others."""
    before = json.loads((out / "manifest.json").read_text())["runs"]["jax-cpu"]["cases"]
    t = run([python, SCRIPT, "--device", "cpu", "--framework", "jax", "--only", "^add_fp32_n256$",
             "--reps", REPS + 1, "--warmup", 0, "--out", out])
    after = json.loads((out / "manifest.json").read_text())["runs"]["jax-cpu"]["cases"]
    reps = {c["label"]: c.get("reps") for c in after}
    check(t.returncode == 0 and sorted(reps) == sorted(c["label"] for c in before)
          and reps["add_fp32_n256"] == REPS + 1 and reps["add_bf16_n512"] == REPS,
          f"re-run of one case: exit {t.returncode}, reps per case {reps}")


def check_refusals(python, out, check):
    has_gpu = run([python, "-c", "import jax, sys; sys.exit(0 if any(d.platform == 'gpu' for d in jax.devices()) "
                   "else 1)"]).returncode == 0
    if not has_gpu:
        t = run([python, SCRIPT, "--device", "cuda", "--quick", "--framework", "jax", "--only", "add_fp32",
                 "--out", out])
        check(t.returncode == 2 and "refusing to label a CPU run as GPU data" in t.stderr,
              f"--device cuda without a GPU: exit {t.returncode}, {t.stderr.strip()}")
        check(not any(p.name.startswith("jax-") and p.name != "jax-cpu" for p in out.iterdir()),
              "no GPU-named directory written")
    has_torch = run([python, "-c", "import torch"]).returncode == 0
    t = run([python, SCRIPT, "--device", "cpu", "--quick", "--framework", "torch", "--only", "^add_fp32",
             "--reps", REPS, "--warmup", 1, "--out", out])
    if has_torch:
        check(t.returncode == 0 and (out / "torch-cpu" / "add_fp32_n256.pt.trace.json.gz").exists(),
              f"torch on the CPU: exit {t.returncode}, {t.stderr.strip()}")
    else:
        check(t.returncode == 2 and "needs PyTorch" in t.stderr,
              f"--framework torch without torch: exit {t.returncode}, {t.stderr.strip()}")


UPCAST_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import jax, jax.numpy as jnp
from capture_gpu_profiles import upcasts_f8
f = lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.bfloat16)
text = lambda dt: jax.jit(f).lower(jnp.ones((32, 32), dt), jnp.ones((32, 32), dt)).compile().as_text()
print(upcasts_f8(text(jnp.float8_e4m3fn)), upcasts_f8(text(jnp.bfloat16)))
"""


def check_f8_probe(python, check):
    """XLA:CPU emulates an f8 dot with converts: the probe the GPU run relies on must see them."""
    t = run([python, "-c", UPCAST_PROBE, REPO / "scripts"])
    check(t.stdout.split() == ["True", "False"], f"upcasts_f8 (f8 dot, bf16 dot): {t.stdout.strip()} {t.stderr.strip()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--roofline", default=str(REPO / "build/roofline"))
    ap.add_argument("--python", help="a python that can import jax")
    args = ap.parse_args()
    if not pathlib.Path(args.roofline).exists():
        print(f"SKIPPED: no roofline binary at {args.roofline}")
        return SKIP
    python = find_python(args.python)
    if python is None:
        print("SKIPPED: no python with jax (run scripts/venv.sh, or set ROOFLINE_CAPTURE_PYTHON)")
        return SKIP
    check = Check()
    with tempfile.TemporaryDirectory(prefix="capture_smoke_") as tmp:
        out = pathlib.Path(tmp)
        check_capture(python, args.roofline, out, check)
        check_rerun(python, out, check)
        check_refusals(python, out, check)
    check_f8_probe(python, check)
    if check.failures:
        print(f"FAILED: {check.failures} checks")
        return 1
    print("PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
