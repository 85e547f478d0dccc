"""XLA's own counts of what each remat policy runs again, against the model's.

scripts/remat_collectives.py compiles a scanned stack of decoder-like
layers under MaxText's remat policies on a CPU mesh and counts, per layer,
the backward's matmuls and the tensor-parallel and FSDP collectives. The
training-step model uses the same counts (detail/training_remat.hpp:
remat_runs, tp_collectives; training_step_parts.hpp: the FSDP gathers),
which tests/sharding/training_test.cc and training_remat_test.cc check on
the C++ side. It runs at two sizes and on two meshes (an all-gather is
counted once per value gathered: at some sizes XLA's program gathers one
value twice, and the model counts the value). Should a jax release compile
the policies otherwise, this test fails and the model's counts want a look.
"""

import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("jax", reason="scripts/remat_collectives.py needs jax (scripts/venv.sh installs it)")

REPO = pathlib.Path(__file__).resolve().parents[2]

# Per layer of two blocks and four weight matrices. Backward matmuls: two a
# weight matmul (8), and one more for each matmul the policy runs again
# (never W_down). TP all-gathers: 6 under every policy. TP reductions: 4,
# and Wo's again where it runs again. FSDP gathers (matrices): each weight
# before the forward and before the backward, 8, under every policy.
MODEL = {
    "none": {"matmuls": 8, "tp_gathers": 6, "tp_reduces": 4, "fsdp_gathers": 8},
    "minimal": {"matmuls": 8, "tp_gathers": 6, "tp_reduces": 4, "fsdp_gathers": 8},
    "save_dot_except_mlpwi": {"matmuls": 9, "tp_gathers": 6, "tp_reduces": 4, "fsdp_gathers": 8},
    "save_qkv_proj": {"matmuls": 10, "tp_gathers": 6, "tp_reduces": 5, "fsdp_gathers": 8},
    "full": {"matmuls": 11, "tp_gathers": 6, "tp_reduces": 5, "fsdp_gathers": 8},
    # offload-qkv: save_qkv_proj's recompute, its Q, K, V in host memory.
    "qkv_proj_offloaded": {"matmuls": 10, "tp_gathers": 6, "tp_reduces": 5, "fsdp_gathers": 8},
}


@pytest.mark.parametrize("tokens,mesh", [("64", "2x4"), ("4096", "2x4"), ("64", "4x2")])
def test_xla_runs_again_what_the_model_counts(tokens, mesh):
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "remat_collectives.py"), "--json",
                          "--tokens", tokens, "--mesh", mesh],
                         capture_output=True, text=True, timeout=300, check=True)
    table = json.loads(out.stdout)["per_layer"]
    # The values gathered, not the duplicate gathers XLA leaves at some sizes.
    distinct = {p: {k: c[k] for k in ("matmuls", "tp_gathers", "tp_reduces", "fsdp_gathers")}
                for p, c in table.items()}
    assert distinct == MODEL
    assert all(c["other_axes"] == 0 for c in table.values())
