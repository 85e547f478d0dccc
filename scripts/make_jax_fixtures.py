#!/usr/bin/env python3
"""Writes real sharded JAX programs as fixtures under tests/data/jax/.

Run with the project's virtualenv (scripts/venv.sh makes it):

    .venv/bin/python scripts/make_jax_fixtures.py [OUT_DIR]

Each program runs on 8 virtual CPU devices
(XLA_FLAGS=--xla_force_host_platform_device_count=8) and is written as

  NAME.hlo.txt     the optimized HLO, as `compiled.as_text()` prints it
  NAME.hlo.pb      the same module as a serialized HloModuleProto
  NAME.cost.json   XLA's own count, `compiled.cost_analysis()` (flops,
                   transcendentals, bytes accessed), with the jax version
  NAME.xplane.pb.gz  a profile of two executions (jax.profiler.trace),
                   gzip'd (the trace reader inflates it)

The programs:
  dp_transformer   data-parallel training step of a one-block transformer
                   (layer norm, attention, MLP, cross-entropy; gradients
                   all-reduced across the 8 devices)
  fsdp_mlp         an MLP whose weights are sharded over 8 devices, written
                   as FSDP is (shard_map): all-gathers of the weights
                   forward, reduce-scatters of the gradients backward
  fsdp_mlp_auto    the same sharding left to XLA's partitioner (jit with
                   shardings): on CPU it picks all-gather, all-to-all and
                   all-reduce instead
  matmul_2d        a matmul sharded on a 4x2 mesh (iota replica groups)
  scan             lax.scan over 6 layers of matmul + tanh on one device

The figures are deterministic for a given jax version; tests pin our counts
to cost.json, so regenerate both together.
"""

import glob
import gzip
import json
import os
import shutil
import sys
import tempfile

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", "tests", "data", "jax"))
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402  (XLA_FLAGS must be set first)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(OUT, name), mode) as f:
        f.write(data)


def cost_of(compiled):
    c = compiled.cost_analysis()
    if isinstance(c, list):  # older jax returns one dict per module
        c = c[0]
    keep = ("flops", "transcendentals", "bytes accessed")
    return {k: c.get(k, 0.0) for k in keep}


def profile(name, fn, args, steps=2):
    """Runs fn a few times under the profiler and keeps the .xplane.pb."""
    jax.block_until_ready(fn(*args))  # compile and warm up outside the trace
    tmp = tempfile.mkdtemp(prefix="roofline_jax_prof_")
    opts = jax.profiler.ProfileOptions()
    opts.python_tracer_level = 0  # Python frames would dwarf the device ops
    opts.host_tracer_level = 1  # user-level host events only
    with jax.profiler.trace(tmp, profiler_options=opts):
        for _ in range(steps):
            jax.block_until_ready(fn(*args))
    found = glob.glob(os.path.join(tmp, "plugins", "profile", "*", "*.xplane.pb"))
    if len(found) != 1:
        raise SystemExit(f"{name}: expected one .xplane.pb under {tmp}, found {found}")
    with open(found[0], "rb") as f:
        # mtime=0: the same profile gives the same bytes
        write(f"{name}.xplane.pb.gz", gzip.compress(f.read(), 9, mtime=0))
    shutil.rmtree(tmp, ignore_errors=True)


def save(name, fn, args):
    compiled = fn.lower(*args).compile()
    write(f"{name}.hlo.txt", compiled.as_text())
    modules = compiled.runtime_executable().hlo_modules()
    write(f"{name}.hlo.pb", modules[0].as_serialized_hlo_module_proto())
    cost = cost_of(compiled)
    cost["module"] = modules[0].name
    cost["jax"] = jax.__version__
    write(f"{name}.cost.json", json.dumps(cost, indent=1, sort_keys=True) + "\n")
    profile(name, fn, args)


# --- the programs -----------------------------------------------------------

D_MODEL, HEADS, SEQ, VOCAB, FF = 128, 4, 64, 512, 512


def layer_norm(x, g):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-6) * g


def transformer_loss(params, tokens, targets):
    x = params["embed"][tokens]  # [B, S, D]
    h = layer_norm(x, params["ln1"])
    q, k, v = (h @ params[n] for n in ("wq", "wk", "wv"))
    b, s, _ = q.shape
    split = lambda t: t.reshape(b, s, HEADS, D_MODEL // HEADS)
    q, k, v = split(q), split(k), split(v)
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(D_MODEL // HEADS)
    mask = jnp.tril(jnp.ones((s, s), bool))
    att = jax.nn.softmax(jnp.where(mask, logits, -1e9), axis=-1)
    o = jnp.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, s, D_MODEL)
    x = x + o @ params["wo"]
    h = layer_norm(x, params["ln2"])
    x = x + jax.nn.gelu(h @ params["w1"]) @ params["w2"]
    out = layer_norm(x, params["ln3"]) @ params["embed"].T  # tied unembedding
    logp = jax.nn.log_softmax(out, axis=-1)
    return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()


def transformer_params(key):
    ks = jax.random.split(key, 8)
    n = lambda k, shape: jax.random.normal(k, shape, jnp.float32) * 0.02
    return {
        "embed": n(ks[0], (VOCAB, D_MODEL)),
        "wq": n(ks[1], (D_MODEL, D_MODEL)), "wk": n(ks[2], (D_MODEL, D_MODEL)),
        "wv": n(ks[3], (D_MODEL, D_MODEL)), "wo": n(ks[4], (D_MODEL, D_MODEL)),
        "w1": n(ks[5], (D_MODEL, FF)), "w2": n(ks[6], (FF, D_MODEL)),
        "ln1": jnp.ones((D_MODEL,)), "ln2": jnp.ones((D_MODEL,)), "ln3": jnp.ones((D_MODEL,)),
    }


def dp_transformer(mesh):
    params = transformer_params(jax.random.PRNGKey(0))
    rep = NamedSharding(mesh, P())
    data = NamedSharding(mesh, P("d"))
    params = jax.device_put(params, rep)
    tokens = jax.device_put(jnp.zeros((16, SEQ), jnp.int32), data)
    targets = jax.device_put(jnp.ones((16, SEQ), jnp.int32), data)

    def step(p, t, y):
        loss, g = jax.value_and_grad(transformer_loss)(p, t, y)
        return loss, jax.tree.map(lambda w, gw: w - 1e-3 * gw, p, g)

    fn = jax.jit(step, out_shardings=(rep, rep))
    return fn, (params, tokens, targets)


def fsdp_mlp(mesh):
    from jax import shard_map
    shard = NamedSharding(mesh, P("d", None))
    w1 = jax.device_put(jnp.ones((1024, 1024), jnp.float32) * 0.01, shard)
    w2 = jax.device_put(jnp.ones((1024, 1024), jnp.float32) * 0.01, shard)
    x = jax.device_put(jnp.ones((64, 1024), jnp.float32), NamedSharding(mesh, P("d", None)))

    def local_loss(ws, x):  # ws: this device's rows of each weight
        full = [jax.lax.all_gather(w, "d", tiled=True) for w in ws]
        h = jax.nn.relu(x @ full[0])
        return jax.lax.psum((h @ full[1]).sum(), "d")

    def local_step(ws, x):
        # the transpose of the tiled all-gather is a reduce-scatter
        g = jax.grad(local_loss)(ws, x)
        return tuple(w - 1e-3 * gw for w, gw in zip(ws, g))

    spec = (P("d", None), P("d", None))
    fn = jax.jit(shard_map(local_step, mesh=mesh, in_specs=(spec, P("d", None)),
                           out_specs=spec, check_vma=False))
    return fn, ((w1, w2), x)


def fsdp_mlp_auto(mesh):
    shard = NamedSharding(mesh, P("d", None))
    w1 = jax.device_put(jnp.ones((1024, 1024), jnp.float32) * 0.01, shard)
    w2 = jax.device_put(jnp.ones((1024, 1024), jnp.float32) * 0.01, shard)
    x = jax.device_put(jnp.ones((64, 1024), jnp.float32), NamedSharding(mesh, P("d", None)))

    def loss(ws, x):
        h = jax.nn.relu(x @ ws[0])
        return (h @ ws[1]).sum()

    def step(ws, x):
        g = jax.grad(loss)(ws, x)
        return tuple(w - 1e-3 * gw for w, gw in zip(ws, g))

    fn = jax.jit(step, out_shardings=(shard, shard))
    return fn, ((w1, w2), x)


def matmul_2d(mesh2):
    x = jax.device_put(jnp.ones((512, 1024), jnp.float32), NamedSharding(mesh2, P("x", "y")))
    w = jax.device_put(jnp.ones((1024, 256), jnp.float32), NamedSharding(mesh2, P("y", None)))
    fn = jax.jit(lambda a, b: a @ b, out_shardings=NamedSharding(mesh2, P("x", None)))
    return fn, (x, w)


def scan():
    ws = jnp.ones((6, 256, 256), jnp.float32) * 0.01
    x = jnp.ones((128, 256), jnp.float32)

    def layers(ws, x):
        return jax.lax.scan(lambda h, w: (jnp.tanh(h @ w), None), x, ws)[0]

    return jax.jit(layers), (ws, x)


def main():
    os.makedirs(OUT, exist_ok=True)
    devices = np.array(jax.devices())
    if devices.size != 8:
        raise SystemExit(f"expected 8 virtual CPU devices, got {devices.size}")
    mesh = Mesh(devices, ("d",))
    mesh2 = Mesh(devices.reshape(4, 2), ("x", "y"))
    save("dp_transformer", *dp_transformer(mesh))
    save("fsdp_mlp", *fsdp_mlp(mesh))
    save("fsdp_mlp_auto", *fsdp_mlp_auto(mesh))
    save("matmul_2d", *matmul_2d(mesh2))
    save("scan", *scan())
    write("README.jax_version", f"jax {jax.__version__} jaxlib "
          f"{getattr(jax.lib, '__version__', '')} backend cpu, 8 virtual devices\n")


if __name__ == "__main__":
    main()
