"""The cases scripts/capture_gpu_profiles.py captures, framework-independent:
each one op of a known shape, its label, the bytes it holds and its sweep."""
import dataclasses

KIB = 1024

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
