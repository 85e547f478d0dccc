#!/usr/bin/env python3
"""A ViT-S/16 training step in plain JAX (no flax), data parallel.

    PYTHONPATH=build/python .venv/bin/python examples/python/vit_s16_step.py [--batch 1024] [--scan]

The model of "Better plain ViT baselines for ImageNet-1k" (Beyer, Zhai and
Kolesnikov, 2022, arXiv:2205.01580), which trains it 90 epochs on a TPU v3-8
in under 7 hours: 224x224 images cut into 16x16 patches (196 tokens), width
384, 12 blocks of 6-head self-attention and a 1536-wide GELU MLP (pre-norm),
fixed 2-D sin-cos position embeddings, global average pooling, a 1000-way
head; about 22M parameters. The step is the loss (softmax cross-entropy),
its gradients and a plain SGD update; the batch is split over the mesh axis
"data" and the parameters are replicated, so XLA's partitioner inserts one
all-reduce per gradient.

Nothing is allocated: `abstract_params` and `abstract_batch` give
jax.ShapeDtypeStruct trees, which jax.jit(...).lower() and
roofline.jax.predict take as arguments. `scan=True` stacks the 12 blocks'
weights and runs them with lax.scan (one while loop), as most large models
are written; the default unrolls them.
"""

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

IMAGE, PATCH, CHANNELS = 224, 16, 3
WIDTH, DEPTH, HEADS, MLP, CLASSES = 384, 12, 6, 1536, 1000
TOKENS = (IMAGE // PATCH) ** 2  # 196
LEARNING_RATE = 1e-3

# One block's weights (the scan stacks them on a leading axis of DEPTH).
BLOCK_SHAPES = {
    "ln1_scale": (WIDTH,), "ln1_bias": (WIDTH,),
    "qkv": (WIDTH, 3 * WIDTH), "qkv_bias": (3 * WIDTH,),
    "out": (WIDTH, WIDTH), "out_bias": (WIDTH,),
    "ln2_scale": (WIDTH,), "ln2_bias": (WIDTH,),
    "mlp1": (WIDTH, MLP), "mlp1_bias": (MLP,),
    "mlp2": (MLP, WIDTH), "mlp2_bias": (WIDTH,),
}
TOP_SHAPES = {
    "embed": (PATCH * PATCH * CHANNELS, WIDTH), "embed_bias": (WIDTH,),
    "ln_scale": (WIDTH,), "ln_bias": (WIDTH,),
    "head": (WIDTH, CLASSES), "head_bias": (CLASSES,),
}


def abstract_params(dtype=jnp.bfloat16, scan=False):
    """The parameters as jax.ShapeDtypeStruct: {"blocks": [12 dicts] or one
    stacked dict (scan=True), plus the patch embedding, final norm and head}."""
    top = {k: jax.ShapeDtypeStruct(s, dtype) for k, s in TOP_SHAPES.items()}
    if scan:
        top["blocks"] = {k: jax.ShapeDtypeStruct((DEPTH,) + s, dtype) for k, s in BLOCK_SHAPES.items()}
    else:
        top["blocks"] = [{k: jax.ShapeDtypeStruct(s, dtype) for k, s in BLOCK_SHAPES.items()} for _ in range(DEPTH)]
    return top


def abstract_batch(batch_size, dtype=jnp.bfloat16):
    """(images [B, 224, 224, 3], integer labels [B]) as jax.ShapeDtypeStruct."""
    return (jax.ShapeDtypeStruct((batch_size, IMAGE, IMAGE, CHANNELS), dtype),
            jax.ShapeDtypeStruct((batch_size,), jnp.int32))


def param_count():
    block = sum(int(np.prod(s)) for s in BLOCK_SHAPES.values())
    return DEPTH * block + sum(int(np.prod(s)) for s in TOP_SHAPES.values())


def shardings(params):
    """in_shardings for train_step: parameters replicated, the batch split over "data"."""
    return (jax.tree.map(lambda _: P(), params), (P("data"), P("data")))


def posemb_sincos_2d(dtype):
    """big_vision's fixed 2-D sin-cos position embedding, [196, 384]."""
    side = IMAGE // PATCH
    y, x = np.mgrid[:side, :side]
    omega = 1.0 / (10000 ** (np.arange(WIDTH // 4) / (WIDTH // 4 - 1)))
    y = y.reshape(-1)[:, None] * omega[None]
    x = x.reshape(-1)[:, None] * omega[None]
    pe = np.concatenate([np.sin(x), np.cos(x), np.sin(y), np.cos(y)], axis=1)
    return jnp.asarray(pe, dtype)


def layer_norm(x, scale, bias):
    xf = x.astype(jnp.float32)
    mu = xf.mean(-1, keepdims=True)
    var = ((xf - mu) ** 2).mean(-1, keepdims=True)
    return ((xf - mu) * jax.lax.rsqrt(var + 1e-6)).astype(x.dtype) * scale + bias


def block(x, p):
    b = x.shape[0]
    h = layer_norm(x, p["ln1_scale"], p["ln1_bias"])
    qkv = (h @ p["qkv"] + p["qkv_bias"]).reshape(b, TOKENS, 3, HEADS, WIDTH // HEADS)
    q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32) / (WIDTH // HEADS) ** 0.5
    a = jax.nn.softmax(s, axis=-1).astype(x.dtype)
    o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(b, TOKENS, WIDTH)
    x = x + o @ p["out"] + p["out_bias"]
    h = layer_norm(x, p["ln2_scale"], p["ln2_bias"])
    return x + jax.nn.gelu(h @ p["mlp1"] + p["mlp1_bias"]) @ p["mlp2"] + p["mlp2_bias"]


def logits(params, images):
    b = images.shape[0]
    side = IMAGE // PATCH
    # 16x16 patches, flattened: the stride-16 convolution as one matmul.
    patches = images.reshape(b, side, PATCH, side, PATCH, CHANNELS).transpose(0, 1, 3, 2, 4, 5)
    patches = patches.reshape(b, TOKENS, PATCH * PATCH * CHANNELS)
    # the batch stays split across "data" (XLA would otherwise be free to gather it)
    x = jax.lax.with_sharding_constraint(patches @ params["embed"] + params["embed_bias"], P("data"))
    x = x + posemb_sincos_2d(x.dtype)
    blocks = params["blocks"]
    if isinstance(blocks, dict):  # stacked: one while loop over the depth
        x, _ = jax.lax.scan(lambda c, p: (block(c, p), None), x, blocks)
    else:
        for p in blocks:
            x = block(x, p)
    x = layer_norm(x, params["ln_scale"], params["ln_bias"]).mean(axis=1)
    return x @ params["head"] + params["head_bias"]


def loss(params, batch):
    images, labels = batch
    logp = jax.nn.log_softmax(logits(params, images).astype(jnp.float32))
    return -jnp.take_along_axis(logp, labels[:, None], axis=-1).mean()


def train_step(params, batch):
    """Loss, gradients and an SGD update: (loss, new params)."""
    value, grads = jax.value_and_grad(loss)(params, batch)
    return value, jax.tree.map(lambda w, g: w - jnp.asarray(LEARNING_RATE, w.dtype) * g, params, grads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=1024, help="global batch (default 1024, the paper's)")
    parser.add_argument("--devices", type=int, default=4,
                        help="data-parallel chips (default 4, a v3-8's: chip specs describe whole chips)")
    parser.add_argument("--chip", default="tpu-v3", help="default: tpu-v3, the paper's chip")
    parser.add_argument("--scan", action="store_true", help="run the blocks with lax.scan")
    args = parser.parse_args()
    jax.config.update("jax_num_cpu_devices", args.devices)
    import roofline
    import roofline.jax

    chip = args.chip
    params = abstract_params(scan=args.scan)
    batch = abstract_batch(args.batch)
    pred = roofline.jax.predict(train_step, params, batch, chip=chip, mesh={"data": args.devices},
                                in_shardings=shardings(params))
    per_device = args.batch / args.devices
    print(f"ViT-S/16 ({param_count() / 1e6:.1f}M parameters), batch {args.batch} over {args.devices} x {pred.chip}")
    print(f"per device: {pred.flops:.4g} FLOPs, {pred.hbm_bytes:.4g} HBM bytes, {pred.ici_bytes:.4g} ICI bytes")
    print(f"step floor {pred.t_lower_s * 1e3:.2f} ms ({pred.bound}-bound): at most "
          f"{per_device / pred.t_lower_s:.0f} images/s per chip (nothing fused: {pred.t_lower_unfused_s * 1e3:.2f} ms, "
          f"{pred.hbm_bytes_unfused:.4g} HBM bytes)")


if __name__ == "__main__":
    main()
