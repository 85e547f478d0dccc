#!/usr/bin/env python3
"""Where XLA reduces the gradients of a multi-slice (DCN) training step.

The training-step model's expected time (docs/layers.md, "Expected step
time") lets the gradient reductions and the data-parallel all-reduce over
the slices run behind compute, but only behind the backward pass's: they
are made in the backward, one layer after another, and a forward pass that
is over cannot hide them. This script asks XLA where they are: it compiles
the gradient of a scanned stack of small decoder-like layers on a CPU mesh
slice x fsdp (2 x 4 by default, of 8 host devices), the tokens sharded over
both axes (data parallelism over `slice`, as MaxText's dcn_data_parallelism
puts it, and FSDP over `fsdp`), each weight sharded on D over `fsdp` and
replicated over `slice`, and lists for each loop body of the optimised HLO
and for the entry computation the collectives by the axes their groups
span:

  fsdp        over `fsdp` alone: the weight gathers, a gradient's
              reduce-scatter (the CPU backend keeps it as an all-reduce and
              a slice)
  slice       over `slice` alone: a data-parallel all-reduce of the
              gradient's FSDP shard
  slice+fsdp  over both axes
  ?           groups not read (all devices in one group, replica_groups={})

What it shows (jax 0.10.2; 64 and 4096 tokens, 2 x 4 and 4 x 2, the
policies none, minimal and full): the forward loop body gathers a layer's
four weights over `fsdp`; the backward loop body gathers them again and
reduces the layer's four weight gradients over both axes (on this backend
one all-reduce over all the devices, which the model times as a
reduce-scatter over `fsdp` and an all-reduce of the shard over `slice`),
per layer; the entry computation holds no collective. So each layer's
gradient reduction, its DCN part included, can run behind the next layer's
backward (the last one's is exposed) and behind no forward, which is what
the model assumes; the TPU compiler runs the same SPMD partitioner, but no
TPU program was read. Usage:

  .venv/bin/python scripts/dcn_collectives.py [--tokens N] [--mesh SxF] [--json]
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remat_collectives as rc  # noqa: E402  (sets the 8 host devices before jax starts)

jax, jnp, np = rc.jax, rc.jnp, rc.np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

POLICIES = {p: rc.POLICIES[p] for p in ("none", "minimal", "full")}


def compiled_hlo(policy, tokens, slices, fsdp):
    """The optimised HLO of the step, and its mesh: the tokens over both
    axes, each weight sharded on D over `fsdp` and replicated over `slice`."""
    devices = np.array(jax.devices()[: slices * fsdp]).reshape(slices, fsdp)
    mesh = Mesh(devices, ("slice", "fsdp"))
    return rc.scanned_grad_hlo(mesh, NamedSharding(mesh, P(("slice", "fsdp"), None)),
                               NamedSharding(mesh, P(None, "fsdp", None)), NamedSharding(mesh, P(None, None, "fsdp")),
                               policy, tokens, constrain_block_outputs=False), mesh


def device_groups(line):
    """A collective's replica groups as sets of device ids. Besides
    remat_collectives.device_groups' spellings, XLA's mesh groups with their
    device order: replica_groups=mesh['axis_0'=4,'axis_1'=2], device_ids=
    ([2,4]T(1,0)) {'axis_0'} (the devices at the mesh's places are an iota
    over [2,4] transposed by (1,0))."""
    m = re.search(r"replica_groups=mesh\[([^\]]*)\], device_ids=\(\[([\d,]+)\](?:T\(([\d,]+)\))?\) \{([^}]*)\}",
                  line)
    if m is None:
        return rc.device_groups(line)
    names = re.findall(r"'(\w+)'=(\d+)", m.group(1))
    sizes = [int(n) for _, n in names]
    ids = np.arange(int(np.prod(sizes))).reshape([int(x) for x in m.group(2).split(",")])
    if m.group(3):
        ids = ids.transpose([int(x) for x in m.group(3).split(",")])
    ids = ids.reshape(sizes)
    axes = [i for i, (name, _) in enumerate(names) if f"'{name}'" in m.group(4)]
    rest = [i for i in range(len(sizes)) if i not in axes]
    rows = ids.transpose(rest + axes).reshape(-1, int(np.prod([sizes[i] for i in axes])))
    return {frozenset(r) for r in rows.tolist()}


def spanned(groups, mesh):
    """The mesh axes along which the devices of a group differ ('slice',
    'fsdp', 'slice+fsdp'); '?' where the groups are not read."""
    if not groups:
        return "?"
    where = {d.id: idx for idx, d in np.ndenumerate(mesh.devices)}
    group = sorted(next(iter(groups)))
    axes = [name for i, name in enumerate(mesh.axis_names) if len({where[d][i] for d in group}) > 1]
    return "+".join(axes) if axes else "none"


def placement(hlo, mesh):
    """For the entry computation and each while body: its collectives as
    {kind: {axes: operands}}, kind 'gather' or 'reduce', axes those the
    group spans."""
    bodies, entry = rc.computations(hlo)
    loops = rc.loop_bodies(hlo)
    out = {}
    for label, body in [("entry", entry)] + [(f"loop {i}", b) for i, b in enumerate(loops)]:
        found = {"gather": {}, "reduce": {}}
        for line in bodies.get(body, []):
            m = rc.COLLECTIVE.search(line)
            if not m:
                continue
            axes = spanned(device_groups(line), mesh)
            kind = "gather" if m.group(2) == "all-gather" else "reduce"
            operands = sum(1 for x in m.group(3).split(",") if x.strip().startswith("%"))
            found[kind][axes] = found[kind].get(axes, 0) + operands
        out[label] = found
    return out


def main():
    tokens, slices, fsdp, as_json = rc.args_of(sys.argv[1:], (2, 4))
    table = {p: placement(*compiled_hlo(p, tokens, slices, fsdp)) for p in POLICIES}
    if as_json:
        print(json.dumps({"jax": jax.__version__, "tokens": tokens, "mesh": [slices, fsdp], "placement": table},
                         indent=1))
        return
    print(f"jax {jax.__version__}, CPU, {tokens} tokens, mesh slice={slices} x fsdp={fsdp}; collectives "
          f"(operands) by where they sit and the axes they span:")
    for p, where in table.items():
        for label, found in where.items():
            text = "; ".join(f"{kind} {axes} {n}" for kind, by in found.items() for axes, n in sorted(by.items()))
            print(f"{p:8s} {label:7s} {text or '-'}")


if __name__ == "__main__":
    main()
