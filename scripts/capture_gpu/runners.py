"""How scripts/capture_gpu_profiles.py runs a case: one runner per framework
(PyTorch, JAX) that builds the op, runs its warmup and captures its timed
repetitions into one profile file, and the outcomes a case can have."""
import glob
import gzip
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

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
