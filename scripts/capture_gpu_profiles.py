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
"""
import argparse
import dataclasses
import datetime
import glob
import gzip
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

MANIFEST = "manifest.json"
SCHEMA = "roofline-capture/1"
KIB = 1024
CHILD = "ROOFLINE_CAPTURE_CHILD"  # set in the per-framework processes of --framework both


# --- the cases (framework-independent) ---------------------------------------

@dataclasses.dataclass(frozen=True)
class Case:
    family: str  # gemm, elementwise, reduction, attention, conv, layernorm
    op: str  # matmul, add, mul_scalar, gelu, copy, sum, softmax, sdpa, conv2d, conv3d, layer_norm
    dtype: str  # bf16, fp8, fp32, tf32
    shape: tuple  # ((dim name, size), ...) in the order the label shows them
    bytes: int  # device memory the case's inputs and outputs hold
    sweep: str  # cases of one sweep differ only in size; --quick keeps each sweep's smallest

    @property
    def dims(self):
        return dict(self.shape)

    @property
    def label(self):
        # One identifier: it is also a Python function name (JAX names the
        # module jit_<label>) and a file name.
        shape = "_".join(f"{k}{v}" for k, v in self.shape)
        return f"{self.op}_{self.dtype}_{shape}"


DTYPE_BYTES = {"bf16": 2, "fp8": 1, "fp32": 4, "tf32": 4}


def gemm_cases():
    cases = []
    for dtype in ("bf16", "fp8", "fp32", "tf32"):
        b = DTYPE_BYTES[dtype]
        out_b = 2 if dtype == "fp8" else b  # fp8 GEMMs write bf16
        square = [2**i for i in range(8, 15)]  # 256 .. 16384
        for s in square:
            cases.append(Case("gemm", "matmul", dtype, (("m", s), ("k", s), ("n", s)),
                              2 * s * s * b + s * s * out_b, f"gemm_{dtype}_square"))
        for k in (4096, 8192):
            for n in (4096, 8192):
                for m in (1, 8, 16, 32, 64, 128):
                    cases.append(Case("gemm", "matmul", dtype, (("m", m), ("k", k), ("n", n)),
                                      (m * k + k * n) * b + m * n * out_b,
                                      f"gemm_{dtype}_decode"))
    return cases


def tensor_sizes_bytes():
    return [KIB * 4**i for i in range(12)]  # 1 KiB .. 4 GiB


ROW = 4096  # reductions run over rows of 4096 (fewer when the tensor is smaller)


def memory_cases():
    cases = []
    for dtype in ("bf16", "fp32"):
        b = DTYPE_BYTES[dtype]
        for size in tensor_sizes_bytes():
            n = size // b
            # add reads two tensors; the others one; each writes one.
            for op, held in (("add", 3), ("mul_scalar", 2), ("gelu", 2), ("copy", 2)):
                cases.append(Case("elementwise", op, dtype, (("n", n),), held * size,
                                  f"elementwise_{op}_{dtype}"))
            cols = min(n, ROW)
            rows = n // cols
            cases.append(Case("reduction", "sum", dtype, (("rows", rows), ("cols", cols)),
                              size + rows * b, f"reduction_sum_{dtype}"))
            cases.append(Case("reduction", "softmax", dtype, (("rows", rows), ("cols", cols)),
                              2 * size, f"reduction_softmax_{dtype}"))
    return cases


ATTENTION_BHTD = [(1, 8, 512, 64), (8, 32, 1024, 64), (4, 16, 2048, 128), (1, 32, 4096, 128),
                  (1, 32, 8192, 128)]

# (N, C, H, W, K, R, stride): ResNet-50's stem and one 3x3 and one 1x1 layer
# per stage, at batch 1 (inference) and 32 (training).
CONV2D = [(3, 224, 64, 7, 2), (64, 56, 64, 3, 1), (256, 56, 64, 1, 1), (128, 28, 128, 3, 1),
          (256, 14, 256, 3, 1), (512, 7, 512, 3, 1), (2048, 7, 512, 1, 1)]
# (N, C, D, H=W, K, R): a video / 3-D U-Net block.
CONV3D = [(1, 32, 8, 28, 32, 3), (8, 64, 16, 56, 64, 3)]

LAYERNORM = [(1024, 1024), (4096, 4096), (8192, 8192), (16384, 4096)]


def shaped_cases():
    cases = []
    for causal in (False, True):
        op = "sdpa_causal" if causal else "sdpa"
        for bb, h, t, d in ATTENTION_BHTD:
            held = 4 * bb * h * t * d * 2  # q, k, v, out in bf16
            cases.append(Case("attention", op, "bf16", (("b", bb), ("h", h), ("t", t), ("d", d)),
                              held, f"attention_{op}"))
    for n in (1, 32):
        for c, hw, k, r, stride in CONV2D:
            p = (hw + 2 * (r // 2) - r) // stride + 1
            held = (n * c * hw * hw + k * c * r * r + n * k * p * p) * 2
            cases.append(Case("conv", "conv2d", "bf16",
                              (("n", n), ("c", c), ("h", hw), ("w", hw), ("k", k), ("r", r),
                               ("stride", stride)), held, "conv_conv2d"))
    for n, c, dd, hw, k, r in CONV3D:
        held = (2 * n * c * dd * hw * hw + k * c * r**3) * 2  # same padding: output as big as input
        cases.append(Case("conv", "conv3d", "bf16",
                          (("n", n), ("c", c), ("d", dd), ("h", hw), ("w", hw), ("k", k), ("r", r)),
                          held, "conv_conv3d"))
    for tokens, hidden in LAYERNORM:
        held = 2 * tokens * hidden * 2 + 2 * hidden * 2
        cases.append(Case("layernorm", "layer_norm", "bf16", (("tokens", tokens), ("hidden", hidden)),
                          held, "layernorm"))
    return cases


def all_cases():
    return gemm_cases() + memory_cases() + shaped_cases()


def quick(cases):
    """The smallest case of each sweep."""
    smallest = {}
    for c in cases:
        if c.sweep not in smallest or c.bytes < smallest[c.sweep].bytes:
            smallest[c.sweep] = c
    return [c for c in cases if smallest[c.sweep] is c]


# --- outcomes ------------------------------------------------------------------

class Skip(Exception):
    """The case cannot run here (too big, dtype not supported); the reason is printed."""


def is_out_of_memory(e):
    text = str(e)
    return "out of memory" in text.lower() or "RESOURCE_EXHAUSTED" in text


def slug(name):
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return re.sub(r"^nvidia-", "", s) or "gpu"


def nvidia_smi():
    """Driver, clocks and power limit of GPU 0, or {} without nvidia-smi."""
    fields = ["name", "driver_version", "memory.total", "clocks.max.sm", "clocks.max.mem",
              "power.limit", "pci.bus_id"]
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader",
                              "-i", "0"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if out.returncode != 0:
        return {}
    return dict(zip(fields, (v.strip() for v in out.stdout.strip().split(","))))


def host_available_bytes():
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


# --- PyTorch -------------------------------------------------------------------

class TorchRunner:
    framework = "torch"
    suffix = ".pt.trace.json.gz"

    def __init__(self, device):
        try:
            import torch  # noqa: F401
        except ImportError:
            raise SystemExit(f"capture: --framework torch needs PyTorch, which {sys.executable} cannot "
                             f"import (on the GPU machine: pip install torch; docs/capture.md)")
        import torch
        self.torch = torch
        if device == "cuda":
            if not torch.cuda.is_available():
                raise SystemExit("capture: torch sees no CUDA GPU; refusing to label a CPU run as GPU data "
                                 "(--device cpu is for smoke tests)")
            self.dev = torch.device("cuda", 0)
            self.name = torch.cuda.get_device_name(0)
            self.capability = torch.cuda.get_device_capability(0)
            # Let cuDNN time its algorithms during the warmup, as training jobs do.
            torch.backends.cudnn.benchmark = True
        else:
            self.dev = torch.device("cpu")
            self.name = "cpu"
            self.capability = None
        self.device_kind = device

    def describe(self):
        t = self.torch
        d = {"name": self.name, "kind": self.device_kind}
        if self.device_kind == "cuda":
            p = t.cuda.get_device_properties(0)
            d.update(compute_capability=f"{self.capability[0]}.{self.capability[1]}",
                     memory_bytes=p.total_memory, multiprocessors=p.multi_processor_count,
                     nvidia_smi=nvidia_smi())
        versions = {"python": platform.python_version(), "torch": t.__version__, "cuda": t.version.cuda,
                    "hip": getattr(t.version, "hip", None),
                    "cudnn": t.backends.cudnn.version() if t.backends.cudnn.is_available() else None}
        return d, versions

    def free_bytes(self):
        if self.device_kind == "cuda":
            return self.torch.cuda.mem_get_info(0)[0]
        return host_available_bytes()

    def dtype(self, name):
        t = self.torch
        return {"bf16": t.bfloat16, "fp32": t.float32, "tf32": t.float32}[name]

    def randn(self, shape, dtype):
        return self.torch.randn(shape, device=self.dev, dtype=self.dtype(dtype))

    def build(self, case):
        """Allocates the inputs and returns the call to time."""
        t, F, d = self.torch, self.torch.nn.functional, case.dims
        if case.dtype in ("fp32", "tf32"):
            # The switch is read at every matmul: set it for this case, and
            # the timed reps run with it.
            t.backends.cuda.matmul.allow_tf32 = case.dtype == "tf32"
            t.backends.cudnn.allow_tf32 = case.dtype == "tf32"
        if case.family == "gemm":
            if case.dtype == "fp8":
                return self.build_fp8(d["m"], d["k"], d["n"])
            a, b = self.randn((d["m"], d["k"]), case.dtype), self.randn((d["k"], d["n"]), case.dtype)
            return lambda: t.matmul(a, b)
        if case.family == "elementwise":
            x = self.randn((d["n"],), case.dtype)
            if case.op == "add":
                y = self.randn((d["n"],), case.dtype)
                return lambda: x + y
            if case.op == "mul_scalar":
                return lambda: x * 2.0
            if case.op == "gelu":
                return lambda: F.gelu(x)
            out = t.empty_like(x)
            return lambda: out.copy_(x)
        if case.family == "reduction":
            x = self.randn((d["rows"], d["cols"]), case.dtype)
            if case.op == "sum":
                return lambda: x.sum(dim=-1)
            return lambda: t.softmax(x, dim=-1)
        if case.family == "attention":
            q, k, v = (self.randn((d["b"], d["h"], d["t"], d["d"]), "bf16") for _ in range(3))
            causal = case.op == "sdpa_causal"
            return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        if case.family == "conv":
            if case.op == "conv2d":
                x = self.randn((d["n"], d["c"], d["h"], d["w"]), "bf16")
                w = self.randn((d["k"], d["c"], d["r"], d["r"]), "bf16")
                return lambda: F.conv2d(x, w, stride=d["stride"], padding=d["r"] // 2)
            x = self.randn((d["n"], d["c"], d["d"], d["h"], d["w"]), "bf16")
            w = self.randn((d["k"], d["c"], d["r"], d["r"], d["r"]), "bf16")
            return lambda: F.conv3d(x, w, padding=d["r"] // 2)
        if case.family == "layernorm":
            x = self.randn((d["tokens"], d["hidden"]), "bf16")
            g, b = self.randn((d["hidden"],), "bf16"), self.randn((d["hidden"],), "bf16")
            return lambda: F.layer_norm(x, (d["hidden"],), g, b)
        raise ValueError(f"no torch builder for {case.label}")

    def build_fp8(self, m, k, n):
        t = self.torch
        if self.device_kind != "cuda" or self.capability < (8, 9):
            raise Skip("fp8 GEMMs need a CUDA GPU of compute capability 8.9 or later")
        if not hasattr(t, "_scaled_mm") or not hasattr(t, "float8_e4m3fn"):
            raise Skip(f"torch {t.__version__} has no torch._scaled_mm / float8_e4m3fn")
        a = t.randn((m, k), device=self.dev).to(t.float8_e4m3fn)
        # cuBLASLt wants the second operand column-major.
        b = t.randn((n, k), device=self.dev).to(t.float8_e4m3fn).t()
        one = t.ones((), device=self.dev, dtype=t.float32)

        def mm():
            r = t._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=t.bfloat16)
            return r[0] if isinstance(r, tuple) else r  # torch < 2.4 also returns amax
        try:
            mm()
        except RuntimeError as e:  # a shape cuBLASLt's fp8 path refuses (m not a multiple of 16 ...)
            raise Skip(f"torch._scaled_mm refuses {m}x{k}x{n}: {str(e).splitlines()[0]}")
        return mm

    def sync(self):
        if self.device_kind == "cuda":
            self.torch.cuda.synchronize()

    def capture(self, case, fn, reps, warmup, path):
        t = self.torch
        for _ in range(warmup):
            fn()
        self.sync()
        acts = [t.profiler.ProfilerActivity.CPU]
        if self.device_kind == "cuda":
            acts.append(t.profiler.ProfilerActivity.CUDA)
        with t.profiler.profile(activities=acts, record_shapes=True) as prof:
            for _ in range(reps):
                with t.profiler.record_function(case.label):
                    fn()
            self.sync()
        with tempfile.TemporaryDirectory(prefix="roofline_capture_") as tmp:
            plain = os.path.join(tmp, "trace.json")
            prof.export_chrome_trace(plain)
            with open(plain, "rb") as f, gzip.open(path, "wb", compresslevel=6) as g:
                shutil.copyfileobj(f, g)

    def release(self):
        import gc
        gc.collect()
        if self.device_kind == "cuda":
            self.torch.cuda.empty_cache()


# --- JAX -----------------------------------------------------------------------

class JaxRunner:
    framework = "jax"
    suffix = ".xplane.pb"

    def __init__(self, device):
        # Allocate as needed (not 75% of the GPU up front), so that the free
        # memory the size check reads is true.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        try:
            import jax  # noqa: F401
        except ImportError:
            raise SystemExit(f"capture: --framework jax needs jax, which {sys.executable} cannot import "
                             f"(on the GPU machine: pip install 'jax[cuda12]'; docs/capture.md)")
        import jax
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        if device == "cuda":
            try:
                devs = jax.devices("gpu")
            except RuntimeError as e:
                raise SystemExit(f"capture: jax sees no GPU ({str(e).splitlines()[0]}); refusing to label a "
                                 "CPU run as GPU data (--device cpu is for smoke tests)")
        else:
            devs = jax.devices("cpu")
        self.dev = devs[0]
        self.device_kind = device
        self.name = self.dev.device_kind if device == "cuda" else "cpu"
        cc = getattr(self.dev, "compute_capability", None)
        self.capability = tuple(int(x) for x in str(cc).split(".")[:2]) if cc else None
        self.key = jax.random.PRNGKey(0)

    def describe(self):
        import jaxlib
        d = {"name": self.name, "kind": self.device_kind, "platform": self.dev.platform,
             "device_kind": self.dev.device_kind}
        if self.device_kind == "cuda":
            stats = self.dev.memory_stats() or {}
            d.update(compute_capability=".".join(map(str, self.capability)) if self.capability else None,
                     memory_bytes=stats.get("bytes_limit"), nvidia_smi=nvidia_smi())
        versions = {"python": platform.python_version(), "jax": self.jax.__version__,
                    "jaxlib": jaxlib.__version__}
        try:
            versions["environment"] = self.jax.print_environment_info(return_string=True)
        except Exception:  # older jax: the versions above are what there is
            pass
        return d, versions

    def free_bytes(self):
        if self.device_kind == "cuda":
            stats = self.dev.memory_stats() or {}
            if "bytes_limit" in stats:
                return stats["bytes_limit"] - stats.get("bytes_in_use", 0)
        return host_available_bytes()

    def randn(self, shape, dtype):
        jnp = self.jnp
        self.key, sub = self.jax.random.split(self.key)
        dt = {"bf16": jnp.bfloat16, "fp32": jnp.float32, "tf32": jnp.float32, "fp8": jnp.bfloat16}[dtype]
        x = self.jax.random.normal(sub, shape, dt)
        if dtype == "fp8":
            x = x.astype(jnp.float8_e4m3fn)
        return self.jax.device_put(x, self.dev)

    def build(self, case):
        """Returns (the compiled call, its arguments)."""
        jax, jnp, d = self.jax, self.jnp, case.dims
        lax = jax.lax
        precision = {"fp32": "float32", "tf32": "tensorfloat32"}.get(case.dtype, "default")
        if case.family == "gemm":
            if case.dtype == "fp8" and (self.device_kind != "cuda" or not self.capability
                                        or self.capability < (8, 9)):
                raise Skip("fp8 GEMMs need a CUDA GPU of compute capability 8.9 or later")
            args = (self.randn((d["m"], d["k"]), case.dtype), self.randn((d["k"], d["n"]), case.dtype))
            out = jnp.bfloat16 if case.dtype == "fp8" else None

            def fn(a, b):
                return jnp.matmul(a, b, preferred_element_type=out)
        elif case.family == "elementwise":
            args = (self.randn((d["n"],), case.dtype),)
            if case.op == "add":
                args += (self.randn((d["n"],), case.dtype),)
            fn = {"add": lambda x, y: x + y,
                  "mul_scalar": lambda x: x * 2.0,
                  "gelu": lambda x: jax.nn.gelu(x, approximate=False),  # erf, as torch's default
                  "copy": lambda x: jnp.copy(x)}[case.op]
        elif case.family == "reduction":
            args = (self.randn((d["rows"], d["cols"]), case.dtype),)
            fn = {"sum": lambda x: jnp.sum(x, axis=-1),
                  "softmax": lambda x: jax.nn.softmax(x, axis=-1)}[case.op]
        elif case.family == "attention":
            # jax.nn.dot_product_attention takes (B, T, H, D).
            args = tuple(self.randn((d["b"], d["t"], d["h"], d["d"]), "bf16") for _ in range(3))
            causal = case.op == "sdpa_causal"

            def fn(q, k, v):
                return jax.nn.dot_product_attention(q, k, v, is_causal=causal)
        elif case.family == "conv":
            if case.op == "conv2d":
                args = (self.randn((d["n"], d["c"], d["h"], d["w"]), "bf16"),
                        self.randn((d["k"], d["c"], d["r"], d["r"]), "bf16"))
                strides, dn = (d["stride"],) * 2, ("NCHW", "OIHW", "NCHW")
                pad = [(d["r"] // 2,) * 2] * 2
            else:
                args = (self.randn((d["n"], d["c"], d["d"], d["h"], d["w"]), "bf16"),
                        self.randn((d["k"], d["c"], d["r"], d["r"], d["r"]), "bf16"))
                strides, dn = (1, 1, 1), ("NCDHW", "OIDHW", "NCDHW")
                pad = [(d["r"] // 2,) * 2] * 3

            def fn(x, w):
                return lax.conv_general_dilated(x, w, strides, pad, dimension_numbers=dn)
        elif case.family == "layernorm":
            args = (self.randn((d["tokens"], d["hidden"]), "bf16"), self.randn((d["hidden"],), "bf16"),
                    self.randn((d["hidden"],), "bf16"))

            def fn(x, g, b):
                xf = x.astype(jnp.float32)
                mean = xf.mean(-1, keepdims=True)
                var = ((xf - mean) ** 2).mean(-1, keepdims=True)
                return ((xf - mean) * lax.rsqrt(var + 1e-5) * g + b).astype(x.dtype)
        else:
            raise ValueError(f"no jax builder for {case.label}")
        # The module is named jit_<label>, so the profile names its case.
        fn.__name__ = fn.__qualname__ = case.label
        with jax.default_matmul_precision(precision):
            compiled = jax.jit(fn).lower(*args).compile()
        # An f8 dot XLA upcasts would be timed as another GEMM under fp8's name.
        if case.dtype == "fp8" and upcasts_f8(compiled.as_text()):
            raise Skip("XLA upcasts the operands of this f8 dot: it would not be an fp8 GEMM")
        return compiled, args

    def capture(self, case, built, reps, warmup, path):
        jax = self.jax
        compiled, args = built
        for _ in range(warmup):
            jax.block_until_ready(compiled(*args))
        tmp = tempfile.mkdtemp(prefix="roofline_capture_")
        try:
            opts = jax.profiler.ProfileOptions()
            opts.python_tracer_level = 0  # Python frames would dwarf the device ops
            opts.host_tracer_level = 1  # user annotations (the case's label) only
            with jax.profiler.trace(tmp, profiler_options=opts):
                for _ in range(reps):
                    with jax.profiler.TraceAnnotation(case.label):
                        jax.block_until_ready(compiled(*args))
            found = glob.glob(os.path.join(tmp, "plugins", "profile", "*", "*.xplane.pb"))
            if len(found) != 1:
                raise RuntimeError(f"expected one .xplane.pb under {tmp}, found {found}")
            shutil.move(found[0], path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def release(self):
        import gc
        gc.collect()


def upcasts_f8(hlo_text):
    """Whether an optimized HLO module converts an f8 value to something else.

    A GEMM that takes f8 operands (cuBLASLt's fp8 custom call, a dot in a
    Triton fusion) has no such convert; one XLA emulates starts with them.
    Operands are printed by name only (`convert(%param_0.2)`), so their types
    come from the lines that define them (`%param_0.2 = f8e4m3fn[32,32]{1,0} ...`).
    """
    types = dict(re.findall(r"%([\w.\-]+) = (\w+)\[", hlo_text))
    return any(types.get(x, "").startswith("f8")
               for x in re.findall(r"\bconvert\(%([\w.\-]+)\)", hlo_text))


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
