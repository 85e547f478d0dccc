#!/usr/bin/env python3
"""Which CPU-side HLO of a JAX program should roofline.jax.predict cost?

Run from the repository root with the package importable, e.g.

    PYTHONPATH=build/python .venv/bin/python scripts/jax_hlo_study.py [--quick]

It needs jax (the CPU wheel) and, for the yardsticks, ../shared/data/real.
Two tables, in Markdown, go to stdout (docs/python.md, section JAX, holds
them):

1. For each program and each HLO form (partitioned, compiled, lowered):
   our FLOPs and HBM bytes per device, XLA's own HloCostAnalysis of the same
   module, jax's compiled.cost_analysis(), the collectives (count, ICI bytes)
   and the predicted floor on tpu-v5e. Programs: a sharded bf16 matmul, a
   tensor-parallel bf16 MLP, a data-parallel bf16 transformer step fwd+bwd,
   on 8 virtual CPU devices.
2. Yardsticks: programs whose accelerator-compiled HLO is in
   ../shared/data/real (TPU v6e: an all-reduce of f32[5,1024,1024,256] on
   groups of 2, a broadcast; MI300X: bf16 GEMMs, attention pieces). Each is
   rebuilt here with the same shapes; the accelerator's module and each CPU
   form are costed on the same chip and the floors compared
   (ratio = form / accelerator's HLO).
"""

import math
import os
import statistics
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import roofline  # noqa: E402
import roofline.jax as rj  # noqa: E402

# The study sets jax's own compiled.cost_analysis() beside each form, so every
# form compiles in-process (the worker makes no executable).
rj.USE_WORKER = False

REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "real")
FORMS = rj.HLO_FORMS
S = jax.ShapeDtypeStruct
BF16 = jnp.bfloat16


def transformer_step(batch=16, seq=128, d=256, heads=4, ff=1024, vocab=1024, dtype=BF16):
    """One pre-LN transformer block + LM head: loss and gradients (the SGD
    update applied), bf16 parameters. Returns (fn, args, in_shardings)."""

    def block(p, tokens):
        # keep the batch split: without this, XLA's propagation on CPU
        # all-gathers the tokens and every device runs the whole batch
        x = jax.lax.with_sharding_constraint(p["embed"][tokens], P("data"))
        h = _ln(x)
        q, k, v = (h @ p[w] for w in ("wq", "wk", "wv"))
        split = lambda t: t.reshape(batch, seq, heads, d // heads)  # noqa: E731
        q, k, v = split(q), split(k), split(v)
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(d // heads).astype(dtype)
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        s = jnp.where(mask, s, jnp.asarray(-1e4, dtype))
        a = jax.nn.softmax(s.astype(jnp.float32), axis=-1).astype(dtype)
        o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(batch, seq, d)
        x = x + o @ p["wo"]
        h = _ln(x)
        x = x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]
        logits = (_ln(x) @ p["head"]).astype(jnp.float32)
        labels = jnp.roll(tokens, -1, axis=1)
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))

    def step(p, tokens):
        loss, g = jax.value_and_grad(block)(p, tokens)
        return loss, jax.tree_util.tree_map(lambda w, gw: w - jnp.asarray(1e-3, dtype) * gw, p, g)

    shapes = {"embed": (vocab, d), "wq": (d, d), "wk": (d, d), "wv": (d, d), "wo": (d, d), "w1": (d, ff),
              "w2": (ff, d), "head": (d, vocab)}
    params = {k: S(v, dtype) for k, v in shapes.items()}
    tokens = S((batch, seq), jnp.int32)
    return step, (params, tokens), ({k: P() for k in shapes}, P("data"))


def _ln(x):
    xf = x.astype(jnp.float32)
    m = xf.mean(-1, keepdims=True)
    v = ((xf - m) ** 2).mean(-1, keepdims=True)
    return ((xf - m) * jax.lax.rsqrt(v + 1e-6)).astype(x.dtype)


def programs():
    """name, fn, args, mesh, in_shardings."""
    out = []
    # 2048^3 bf16 matmul, contraction split 8 ways: each device a 2048x256x2048
    # dot, then an all-reduce of the bf16[2048,2048] partial sums.
    out.append(("matmul", lambda a, b: a @ b, (S((2048, 2048), BF16), S((2048, 2048), BF16)), {"x": 8},
                (P(None, "x"), P("x", None))))
    # Megatron MLP: batch on nothing, W1 split by columns, W2 by rows, one
    # all-reduce of the output.
    mlp = lambda x, w1, w2: jax.nn.gelu(x @ w1) @ w2  # noqa: E731
    out.append(("mlp_tp", mlp, (S((1024, 1024), BF16), S((1024, 4096), BF16), S((4096, 1024), BF16)), {"model": 8},
                (P(), P(None, "model"), P("model", None))))
    step, args, shard = transformer_step()
    out.append(("transformer_dp", step, args, {"data": 8}, shard))
    return out


def collective_stats(pred):
    rows = [r for r in pred.collectives if not r.aggregate]
    return len(rows), sum(r.ici_bytes * r.executions for r in rows)


def table_forms(quick=False):
    print("| program | HLO | our FLOPs | XLA FLOPs (same module) | jax compiled FLOPs | our bytes | XLA bytes (same module) "
          "| collectives | ICI bytes | t_lower v5e (us) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, fn, args, mesh, shard in programs():
        for form in FORMS:
            p = rj.predict(fn, *args, chip="tpu-v5e", mesh=mesh, in_shardings=shard, hlo=form)
            x = p.xla.get("costed")
            n, ici = collective_stats(p)
            print(f"| {name} | {form} | {p.flops:.4g} | {x.flops if x else float('nan'):.4g} | "
                  f"{p.xla['compiled'].flops:.4g} | {p.hbm_bytes:.4g} | "
                  f"{x.bytes_accessed if x else float('nan'):.4g} | {n} | {ici:.4g} | {p.t_lower_s * 1e6:.1f} |")
        if quick:
            break


def yardsticks():
    """(label, chip, accelerator HLO path, fn (or fn(mesh) with a mesh), args, mesh, in_shardings)."""
    tpu = os.path.join(REAL, "xprof", "hlo_protos_extracted", "tpu_v6e_x4_inference_2.")
    gpu = os.path.join(REAL, "tracelens", "hlo_protos_extracted", "mi300x_jax08_")
    big = (5, 1024, 1024, 256)
    out = [
        # groups {i, i+4} of 8 devices = the first axis of a 2x4 mesh.
        ("v6e all-reduce f32[5,1024,1024,256] /2", "tpu-v6e", tpu + "jit__psum_9646411105960254074_.hlo_proto.pb",
         _psum_on, (S((2,) + big, jnp.float32),), {"x": 2, "y": 4}, None),
        ("v6e broadcast f32[5,1024,1024,256]", "tpu-v6e", tpu + "jit_broadcast_in_dim_11287434908481120160_.hlo_proto.pb",
         lambda s: jnp.broadcast_to(s, big), (S((), jnp.float32),), None, None),
    ]
    dots = {"5": (256, 256, 256), "21": (1024, 1024, 1024), "34": (4096, 4096, 4096), "49": (8192, 4096, 8192),
            "64": (2048, 8192, 2048), "79": (16384, 1024, 4096)}
    for k, (m, kk, n) in dots.items():
        out.append((f"MI300X dot {m}x{kk}x{n} bf16", "tpu-v5e", gpu + f"gemm.jit_dot_{k}_.hlo_proto.pb",
                    lambda a, b: jnp.dot(a, b), (S((m, kk), BF16), S((kk, n), BF16)), None, None))
    x = S((4, 2048, 1024), BF16)
    out += [
        ("MI300X x@W bf16[4,2048,1024]x[1024,1024]", "tpu-v5e", gpu + "attention.jit_matmul_19_.hlo_proto.pb",
         jnp.matmul, (x, S((1024, 1024), BF16)), None, None),
        ("MI300X bmm bf16[4,2048,1024]x[4,1024,2048]", "tpu-v5e", gpu + "attention.jit_matmul_32_.hlo_proto.pb",
         jnp.matmul, (x, S((4, 1024, 2048), BF16)), None, None),
        ("MI300X exp bf16[4,2048,2048]", "tpu-v5e", gpu + "attention.jit_exp_53_.hlo_proto.pb", jnp.exp,
         (S((4, 2048, 2048), BF16),), None, None),
        ("MI300X add bf16[8,4096,2048]", "tpu-v5e", gpu + "elementwise.jit_add_11_.hlo_proto.pb", jnp.add,
         (S((8, 4096, 2048), BF16), S((8, 4096, 2048), BF16)), None, None),
    ]
    return out


def table_yardsticks():
    if not os.path.isdir(REAL):
        print(f"(no {REAL}: yardsticks skipped)")
        return
    print("| program | chip | accelerator HLO t_lower (us) | " + " | ".join(f"{f} (us, ratio)" for f in FORMS) + " |")
    print("|---|---|---:|" + "---:|" * len(FORMS))
    ratios = {f: [] for f in FORMS}
    for label, chip, path, fn, args, mesh, shard in yardsticks():
        ref = roofline.hlo(path, roofline.chip(chip))
        cells = []
        for form in FORMS:
            # a mesh program is built on the mesh (shard_map needs it)
            f = fn(rj._mesh_from(jax, mesh)) if mesh is not None else fn
            p = rj.predict(f, *args, chip=chip, hlo=form)
            r = p.t_lower_s / ref.total.t_lower_s
            ratios[form].append(r)
            cells.append(f"{p.t_lower_s * 1e6:.1f} ({r:.2f})")
        print(f"| {label} | {chip} | {ref.total.t_lower_s * 1e6:.1f} | " + " | ".join(cells) + " |")
    print("| geometric mean of the ratios | | | " + " | ".join(
        f"{statistics.geometric_mean(ratios[f]):.2f} (worst {max(ratios[f], key=lambda r: abs(math.log(r))):.2f})"
        for f in FORMS) + " |")


def _psum_on(mesh):
    return jax.jit(jax.shard_map(lambda x: jax.lax.psum(x[0], "x"), mesh=mesh, in_specs=P("x"), out_specs=P()))


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    print(f"jax {jax.__version__}, {len(jax.devices())} CPU devices\n")
    table_forms(quick)
    print()
    table_yardsticks()
