"""Where XLA puts a multi-slice step's gradient reductions, against the
overlap model's assumption.

The training-step model's expected time (detail/training_expected.hpp)
hides the gradient reductions, the data-parallel all-reduce over DCN
slices included, behind the backward pass's compute only, because they are
made in the backward loop, a layer at a time. scripts/dcn_collectives.py
compiles a scanned stack of layers on a slice x fsdp CPU mesh and lists the
collectives of each loop body and of the entry computation. Should a jax
release move the reductions out of the loop (one all-reduce of every
layer's gradient after the backward), this test fails and the model's
overlap wants a look.
"""

import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("jax", reason="scripts/dcn_collectives.py needs jax (scripts/venv.sh installs it)")

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("tokens,mesh", [("64", "2x4"), ("4096", "4x2")])
def test_gradient_reductions_sit_in_the_backward_loop(tokens, mesh):
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "dcn_collectives.py"), "--json",
                          "--tokens", tokens, "--mesh", mesh],
                         capture_output=True, text=True, timeout=300, check=True)
    table = json.loads(out.stdout)["placement"]
    assert set(table) == {"none", "minimal", "full"}
    for policy, where in table.items():
        # Nothing outside the two loops over the layers.
        assert where["entry"] == {"gather": {}, "reduce": {}}, policy
        loops = sorted((v for k, v in where.items() if k != "entry"), key=lambda v: len(v["reduce"]))
        assert len(loops) == 2, policy
        forward, backward = loops
        # Forward: a layer's four weights gathered over fsdp, nothing reduced.
        assert forward == {"gather": {"fsdp": 4}, "reduce": {}}, policy
        # Backward: the weights gathered again, and the four weight gradients
        # reduced over the slices (and fsdp), per layer.
        assert backward["gather"] == {"fsdp": 4}, policy
        assert sum(n for axes, n in backward["reduce"].items() if "slice" in axes.split("+")) == 4, policy
