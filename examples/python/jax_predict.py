#!/usr/bin/env python3
"""How fast would this training step run on a v5e-8? Asked from a laptop.

    PYTHONPATH=build/python .venv/bin/python examples/python/jax_predict.py

A one-block bf16 transformer (attention + MLP + LM head), its loss and
gradients and an SGD update, data-parallel over 8 chips. jax lowers and
compiles it for 8 virtual CPU devices; roofline costs one device's program,
shardings applied and the gradient all-reduces inserted, on a TPU v5e. No
array is allocated: the arguments are jax.ShapeDtypeStruct.
tests/python/test_jax.py runs it and checks what it prints.
"""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

import roofline.jax

BATCH, SEQ, D, HEADS, FF, VOCAB = 32, 128, 256, 4, 1024, 2048
SHAPES = {"embed": (VOCAB, D), "wq": (D, D), "wk": (D, D), "wv": (D, D), "wo": (D, D), "w1": (D, FF), "w2": (FF, D),
          "head": (D, VOCAB)}


def layer_norm(x):
    xf = x.astype(jnp.float32)
    mu = xf.mean(-1, keepdims=True)
    var = ((xf - mu) ** 2).mean(-1, keepdims=True)
    return ((xf - mu) * jax.lax.rsqrt(var + 1e-6)).astype(x.dtype)


def loss(p, tokens, targets):
    # the batch stays split across "data" (XLA would otherwise be free to
    # gather it and run the whole batch on every device)
    x = jax.lax.with_sharding_constraint(p["embed"][tokens], P("data"))
    h = layer_norm(x)
    split = lambda t: t.reshape(BATCH, SEQ, HEADS, D // HEADS)  # noqa: E731
    q, k, v = (split(h @ p[w]) for w in ("wq", "wk", "wv"))
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / (D // HEADS) ** 0.5
    s = jnp.where(jnp.tril(jnp.ones((SEQ, SEQ), bool)), s, -1e9)
    a = jax.nn.softmax(s, axis=-1).astype(x.dtype)
    x = x + jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(BATCH, SEQ, D) @ p["wo"]
    x = x + jax.nn.gelu(layer_norm(x) @ p["w1"]) @ p["w2"]
    logp = jax.nn.log_softmax((layer_norm(x) @ p["head"]).astype(jnp.float32))
    return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()


def step(p, tokens, targets):
    value, g = jax.value_and_grad(loss)(p, tokens, targets)
    return value, jax.tree.map(lambda w, gw: w - jnp.asarray(1e-3, w.dtype) * gw, p, g)


def main():
    params = {k: jax.ShapeDtypeStruct(s, jnp.bfloat16) for k, s in SHAPES.items()}
    tokens = jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32)
    pred = roofline.jax.predict(step, params, tokens, tokens, chip="tpu-v5e", mesh={"data": 8},
                                in_shardings=({k: P() for k in SHAPES}, P("data"), P("data")))
    print(f"{pred.module} on {pred.num_devices} x {pred.chip}, HLO costed: {pred.hlo}")
    print(f"per device: {pred.flops:.4g} FLOPs, {pred.hbm_bytes:.4g} HBM bytes, {pred.ici_bytes:.4g} ICI bytes")
    print(f"step floor: {pred.t_lower_s * 1e6:.1f} us ({pred.bound}-bound), expected {pred.expected_s * 1e6:.1f} us")
    xla = pred.xla["costed"]
    print(f"XLA's cost analysis of the same module: {xla.flops:.4g} FLOPs, {xla.bytes_accessed:.4g} bytes")
    n = len(pred.collectives)
    sent = sum(r.ici_bytes * r.executions for r in pred.collectives)
    print(f"collectives: {n}, {sent:.4g} ICI bytes")
    print("top ops:")
    for r in pred.top(5):
        print(f"  {r.name:24.24} {r.opcode:12.12} {r.t_lower_s * r.executions * 1e6:8.2f} us  {r.bound}")
    return pred


if __name__ == "__main__":
    main()
