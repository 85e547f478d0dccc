#!/usr/bin/env python3
"""What a remat policy runs again, as XLA compiles it.

The training-step model (include/roofline/sharding/detail/training_remat.hpp:
remat_runs, tp_collectives; training_step_parts.hpp: the FSDP gathers)
counts, per decoder layer and remat policy, the weight matmuls the backward
pass runs again and the tensor-parallel and FSDP collectives. This script
asks XLA for those counts: it compiles the gradient of a scanned stack of
small decoder-like layers on a 2 x 4 CPU mesh (fsdp x model, 8 host
devices), shaped and sharded as MaxText shards a layer (the residual stream
[t, D] sharded on D over `model` and on tokens over `fsdp`; Wq and W_in
column-sharded, Wo and W_down row-sharded; weights sharded on D over
`fsdp`), with MaxText's remat policies (jax.checkpoint over the layer,
prevent_cse=False as MaxText passes under scan), and counts in the
optimised HLO:

  matmuls      dot instructions in the backward loop body (each weight
               matmul has two in the backward; more are the forward's again)
  tp_gathers   all-gathers over `model` in both loop bodies
  tp_reduces   all-reduces over `model` (the CPU backend keeps a
               reduce-scatter as an all-reduce and a slice)
  fsdp_gathers all-gathers over `fsdp`, in weight matrices (4 a layer)

Each layer has two blocks, an attention-like one (x @ Wq, a tanh standing
for the attention core, @ Wo) and an MLP (x @ W_in, relu, @ W_down), whose
dot outputs carry MaxText's checkpoint names (qkv_proj, out_proj, mlpwi,
mlpwo). Usage: .venv/bin/python scripts/remat_collectives.py [--json]
"""
import json
import os
import re
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.ad_checkpoint import checkpoint_name  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

FSDP, MODEL = 2, 4
TOKENS, D, F, LAYERS = 64, 512, 2048, 3

# MaxText's remat_policy names and the jax policies its Decoder maps them to.
POLICIES = {
    "none": None,
    "minimal": jax.checkpoint_policies.checkpoint_dots,
    "save_dot_except_mlpwi": jax.checkpoint_policies.save_only_these_names("qkv_proj", "out_proj", "mlpwo"),
    "save_qkv_proj": jax.checkpoint_policies.save_only_these_names("qkv_proj"),
    "full": jax.checkpoint_policies.nothing_saveable,
}


def compiled_hlo(policy):
    devices = np.array(jax.devices()[: FSDP * MODEL]).reshape(FSDP, MODEL)
    mesh = Mesh(devices, ("fsdp", "model"))
    act = NamedSharding(mesh, P("fsdp", "model"))

    def layer(x, w):
        wq, wo, wi, wd = w
        x = jax.lax.with_sharding_constraint(x, act)
        a = jnp.tanh(checkpoint_name(jnp.dot(x, wq), "qkv_proj"))
        o = jax.lax.with_sharding_constraint(checkpoint_name(jnp.dot(a, wo), "out_proj"), act)
        x = x + o
        h = jax.nn.relu(checkpoint_name(jnp.dot(x, wi), "mlpwi"))
        m = jax.lax.with_sharding_constraint(checkpoint_name(jnp.dot(h, wd), "mlpwo"), act)
        return x + m

    f = layer if POLICIES[policy] is None else jax.checkpoint(layer, policy=POLICIES[policy], prevent_cse=False)

    def loss(ws, x):
        x, _ = jax.lax.scan(lambda c, w: (f(c, w), None), x, ws)
        return jnp.sum(x.astype(jnp.float32) ** 2)

    def put(shape, sharding):
        return jax.device_put(jnp.ones(shape, jnp.bfloat16), sharding)

    stacked = NamedSharding(mesh, P(None, "fsdp", "model")), NamedSharding(mesh, P(None, "model", "fsdp"))
    ws = (put((LAYERS, D, F), stacked[0]), put((LAYERS, F, D), stacked[1]),
          put((LAYERS, D, F), stacked[0]), put((LAYERS, F, D), stacked[1]))
    return jax.jit(jax.grad(loss)).lower(ws, put((TOKENS, D), act)).compile().as_text()


# Replica groups over `model` (groups of 4 neighbours) and over `fsdp`
# (groups of 2, 4 apart), in either of the two spellings XLA prints.
MODEL_GROUPS = re.compile(r"\{'axis_1'\}|replica_groups=\[2,4\]<=\[8\]")
FSDP_GROUPS = re.compile(r"\{'axis_0'\}|replica_groups=\[4,2\]<=\[2,4\]T\(1,0\)")
COLLECTIVE = re.compile(r"= (\([^=]*?\)|\S+) (all-gather|all-reduce|reduce-scatter)(?:-start)?\(([^)]*)\)")


def counts(hlo):
    """Per layer: each of the scan's two loop bodies runs one layer."""
    bodies = {}
    name = None
    for line in hlo.splitlines():
        if line and not line.startswith(" ") and line.rstrip().endswith("{"):
            name = line.split()[0]
            bodies[name] = []
        elif name is not None:
            bodies[name].append(line)
    out = {"matmuls": 0, "tp_gathers": 0, "tp_reduces": 0, "fsdp_gathers": 0}
    # The two loop bodies (the forward's and the backward's), with the
    # fusions they call for their matmuls.
    whiles = re.findall(r"while\([^)]*\), condition=(%\S+), body=(%\S+)", hlo)
    body_names = {b.rstrip(",") for _, b in whiles}
    dots_by_body = {}
    for name in body_names:
        lines = bodies.get(name, [])
        called = set(re.findall(r"calls=(%[\w.\-]+)", "\n".join(lines)))
        dots = sum(" dot(" in l for l in lines) + sum(
            sum(" dot(" in l for l in bodies.get(c, [])) for c in called)
        dots_by_body[name] = dots
        for line in lines:
            m = COLLECTIVE.search(line)
            if not m:
                continue
            n = sum(1 for x in m.group(3).split(",") if x.strip().startswith("%"))
            if MODEL_GROUPS.search(line):
                out["tp_gathers" if m.group(2) == "all-gather" else "tp_reduces"] += n
            elif FSDP_GROUPS.search(line) and m.group(2) == "all-gather":
                out["fsdp_gathers"] += n
    out["matmuls"] = max(dots_by_body.values()) if dots_by_body else 0
    return out


def main():
    table = {p: counts(compiled_hlo(p)) for p in POLICIES}
    if "--json" in sys.argv:
        print(json.dumps({"jax": jax.__version__, "per_layer": table}, indent=1))
        return
    print(f"jax {jax.__version__}, CPU, mesh fsdp={FSDP} x model={MODEL}, per layer (two blocks):")
    print(f"{'policy':24s} {'backward matmuls':>16s} {'TP all-gathers':>14s} {'TP reduce':>9s} {'FSDP gathers':>12s}")
    for p, c in table.items():
        print(f"{p:24s} {c['matmuls']:16d} {c['tp_gathers']:14d} {c['tp_reduces']:9d} {c['fsdp_gathers']:12d}")


if __name__ == "__main__":
    main()
