#!/usr/bin/env python3
"""What a remat policy runs again, as XLA compiles it.

The training-step model (include/roofline/sharding/detail/training_remat.hpp:
remat_runs, tp_collectives, layer_activations) counts, per decoder layer and
remat policy, the weight matmuls the backward pass runs again and the
tensor-parallel and FSDP collectives. This script asks XLA for those
counts: it compiles the gradient of a scanned stack of small decoder-like
layers on a CPU mesh (fsdp x model, 2 x 4 by default, of 8 host devices),
shaped and sharded as MaxText shards a layer (the residual stream [t, D]
sharded on D over `model` and on tokens over `fsdp`; Wq and W_in
column-sharded, Wo and W_down row-sharded; weights sharded on D over
`fsdp`), with the jax policies MaxText maps its remat_policy names to
(jax.checkpoint over the layer, prevent_cse=False as MaxText passes under
scan), and counts in the optimised HLO:

  matmuls      dot instructions in the backward loop body (each weight
               matmul has two in the backward; more are the forward's again)
  tp_gathers   distinct values all-gathered over `model` in the two loop
               bodies: what the program needs gathered
  tp_reduces   all-reduces over `model` (the CPU backend keeps a
               reduce-scatter as an all-reduce and a slice)
  fsdp_gathers distinct weight matrices all-gathered over `fsdp` (4 a layer)
  *_raw        the all-gathers the program runs: at some sizes XLA gathers
               one value twice (two all-gathers of one operand that CSE
               does not merge, each with its own channel): the model counts
               the values, not the duplicates

Each layer has two blocks, an attention-like one (x @ Wq, a tanh standing
for the attention core, @ Wo) and an MLP (x @ W_in, relu, @ W_down), whose
dot outputs carry MaxText's checkpoint names (qkv_proj, out_proj, mlpwi,
mlpwo). The distinct counts are the same at every size and mesh tried (64
to 4096 tokens; 2 x 4 and 4 x 2; 1 x 8 has no FSDP axis). Usage:

  .venv/bin/python scripts/remat_collectives.py [--tokens N] [--mesh FxM] [--json]
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

D, F, LAYERS = 512, 2048, 3

# MaxText's remat_policy names and the jax policies its Decoder maps them to.
POLICIES = {
    "none": None,
    "minimal": jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims,
    "save_dot_except_mlpwi": jax.checkpoint_policies.save_only_these_names("qkv_proj", "out_proj", "mlpwo"),
    "save_qkv_proj": jax.checkpoint_policies.save_only_these_names("qkv_proj"),
    "full": jax.checkpoint_policies.nothing_saveable,
    # Q, K, V offloaded to host memory, nothing saved on the device (on the
    # CPU backend the copies vanish; the recompute is what counts here).
    "qkv_proj_offloaded": jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["qkv_proj"], offload_src="device",
        offload_dst="pinned_host"),
}


def scanned_grad_hlo(mesh, act, w_in, w_out, policy, tokens, constrain_block_outputs=True):
    """The optimised HLO of the gradient of LAYERS scanned decoder-like
    layers under `policy`: the residual stream [tokens, D] sharded as `act`
    (and each block's output too, where `constrain_block_outputs`), W_q and
    W_in as `w_in`, W_o and W_down as `w_out` (stacked over the layers)."""
    def out(v):
        return jax.lax.with_sharding_constraint(v, act) if constrain_block_outputs else v

    def layer(x, w):
        wq, wo, wi, wd = w
        x = jax.lax.with_sharding_constraint(x, act)
        a = jnp.tanh(checkpoint_name(jnp.dot(x, wq), "qkv_proj"))
        x = x + out(checkpoint_name(jnp.dot(a, wo), "out_proj"))
        h = jax.nn.relu(checkpoint_name(jnp.dot(x, wi), "mlpwi"))
        return x + out(checkpoint_name(jnp.dot(h, wd), "mlpwo"))

    f = layer if POLICIES[policy] is None else jax.checkpoint(layer, policy=POLICIES[policy], prevent_cse=False)

    def loss(ws, x):
        x, _ = jax.lax.scan(lambda c, w: (f(c, w), None), x, ws)
        return jnp.sum(x.astype(jnp.float32) ** 2)

    def put(shape, sharding):
        return jax.device_put(jnp.ones(shape, jnp.bfloat16), sharding)

    ws = (put((LAYERS, D, F), w_in), put((LAYERS, F, D), w_out), put((LAYERS, D, F), w_in),
          put((LAYERS, F, D), w_out))
    return jax.jit(jax.grad(loss)).lower(ws, put((tokens, D), act)).compile().as_text()


def compiled_hlo(policy, tokens, fsdp, model):
    """The optimised HLO of the step, and its mesh."""
    devices = np.array(jax.devices()[: fsdp * model]).reshape(fsdp, model)
    mesh = Mesh(devices, ("fsdp", "model"))
    return scanned_grad_hlo(mesh, NamedSharding(mesh, P("fsdp", "model")),
                            NamedSharding(mesh, P(None, "fsdp", "model")),
                            NamedSharding(mesh, P(None, "model", "fsdp")), policy, tokens), mesh


def computations(hlo):
    """The module's computations as {name: lines}, and the entry's name."""
    bodies, name, entry = {}, None, None
    for line in hlo.splitlines():
        if line and not line.startswith(" ") and line.rstrip().endswith("{"):
            name = line.split()[1] if line.startswith("ENTRY") else line.split()[0]
            if line.startswith("ENTRY"):
                entry = name
            bodies[name] = []
        elif name is not None:
            bodies[name].append(line)
    return bodies, entry


def loop_bodies(hlo):
    """The body computations of the module's while loops, in order."""
    return [b for _, b in re.findall(r"while\([^)]*\), condition=(%[\w.\-]+), body=(%[\w.\-]+)", hlo)]


def args_of(argv, default_mesh):
    """--tokens N (64), --mesh AxB (default_mesh), --json."""
    tokens = int(argv[argv.index("--tokens") + 1]) if "--tokens" in argv else 64
    a, b = (int(x) for x in argv[argv.index("--mesh") + 1].split("x")) if "--mesh" in argv else default_mesh
    return tokens, a, b, "--json" in argv


COLLECTIVE = re.compile(r"= (\([^=]*?\)|\S+) (all-gather|all-reduce|reduce-scatter)(?:-start)?\(([^)]*)\)")


def device_groups(line):
    """A collective's replica groups as sets of device ids, in any of the
    spellings XLA prints: mesh axes, an iota list ([G,S]<=[dims]T(perm)) or
    explicit groups."""
    m = re.search(r"replica_groups=mesh\[([^\]]*)\] \{([^}]*)\}", line)
    if m:
        names = re.findall(r"'(\w+)'=(\d+)", m.group(1))
        dims = [int(n) for _, n in names]
        ids = np.arange(int(np.prod(dims))).reshape(dims)
        axes = [i for i, (name, _) in enumerate(names) if f"'{name}'" in m.group(2)]
        rest = [i for i in range(len(dims)) if i not in axes]
        rows = ids.transpose(rest + axes).reshape(-1, int(np.prod([dims[i] for i in axes])))
        return {frozenset(r) for r in rows.tolist()}
    m = re.search(r"replica_groups=\[(\d+),(\d+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?", line)
    if m:
        dims = [int(x) for x in m.group(3).split(",")]
        ids = np.arange(int(np.prod(dims))).reshape(dims)
        if m.group(4):
            ids = ids.transpose([int(x) for x in m.group(4).split(",")])
        return {frozenset(r) for r in ids.reshape(int(m.group(1)), int(m.group(2))).tolist()}
    m = re.search(r"replica_groups=\{((?:\{[\d,]*\},?)*)\}", line)
    if m is None or not m.group(1):
        return None  # all devices in one group, or a spelling not read here: no single mesh axis
    return {frozenset(int(x) for x in g.split(",")) for g in re.findall(r"\{([\d,]+)\}", m.group(1))}


def counts(hlo, mesh):
    """Per layer: each of the scan's two loop bodies runs one layer.

    An all-gather is counted once per distinct value gathered (operand and
    dimension, in one loop body): XLA can leave two gathers of the same
    value apart when their replica groups are spelled differently (as it
    does for a recomputed forward's at some sizes), which is a duplicate,
    not a transfer the program needs. Reductions are counted as they come
    (each has its own operand)."""
    ids = np.vectorize(lambda d: d.id)(mesh.devices)
    axis_groups = {name: {frozenset(r) for r in np.moveaxis(ids, i, -1).reshape(-1, ids.shape[i]).tolist()}
                   for i, name in enumerate(mesh.axis_names)}
    bodies, _ = computations(hlo)
    out = {"matmuls": 0, "tp_gathers": 0, "tp_reduces": 0, "fsdp_gathers": 0, "tp_gathers_raw": 0,
           "fsdp_gathers_raw": 0, "other_axes": 0}
    body_names = set(loop_bodies(hlo))
    dots = []
    for name in body_names:
        lines = bodies.get(name, [])
        called = set(re.findall(r"calls=(%[\w.\-]+)", "\n".join(lines)))
        dots.append(sum(" dot(" in l for l in lines) + sum(sum(" dot(" in l for l in bodies.get(c, [])) for c in called))
        gathered = set()
        for line in lines:
            m = COLLECTIVE.search(line)
            if not m:
                continue
            groups = device_groups(line)
            axis = next((a for a, g in axis_groups.items() if g == groups), None)
            operands = [x.strip() for x in m.group(3).split(",") if x.strip().startswith("%")]
            if axis is None:
                out["other_axes"] += len(operands)  # over both axes or all devices: neither TP nor FSDP
            elif m.group(2) == "all-gather":
                dim = re.search(r"dimensions=\{(\d+)\}", line).group(1)
                gathered.update((axis, op, dim) for op in operands)
                out[{"model": "tp_gathers_raw", "fsdp": "fsdp_gathers_raw"}[axis]] += len(operands)
            elif axis == "model":
                out["tp_reduces"] += len(operands)
        out["tp_gathers"] += sum(1 for a, _, _ in gathered if a == "model")
        out["fsdp_gathers"] += sum(1 for a, _, _ in gathered if a == "fsdp")
    out["matmuls"] = max(dots) if dots else 0
    return out


def main():
    tokens, fsdp, model, as_json = args_of(sys.argv[1:], (2, 4))
    table = {p: counts(*compiled_hlo(p, tokens, fsdp, model)) for p in POLICIES}
    if as_json:
        print(json.dumps({"jax": jax.__version__, "tokens": tokens, "mesh": [fsdp, model], "per_layer": table},
                         indent=1))
        return
    print(f"jax {jax.__version__}, CPU, {tokens} tokens, mesh fsdp={fsdp} x model={model}, per layer (two blocks):")
    print(f"{'policy':24s} {'backward matmuls':>16s} {'TP all-gathers (run)':>20s} {'TP reduce':>9s} "
          f"{'FSDP gathers (run)':>18s}")
    for p, c in table.items():
        tp = f"{c['tp_gathers']} ({c['tp_gathers_raw']})"
        fsdp = f"{c['fsdp_gathers']} ({c['fsdp_gathers_raw']})"
        print(f"{p:24s} {c['matmuls']:16d} {tp:>20s} {c['tp_reduces']:9d} {fsdp:>18s}")
    if any(c["other_axes"] for c in table.values()):
        print("(some collectives span both axes or all devices: counted in other_axes, not above)")


if __name__ == "__main__":
    main()
