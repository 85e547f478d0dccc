"""roofline.diff: two profiles of one program, as `roofline diff` compares them."""
import json
import os
import subprocess

import pytest

import roofline

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "diff")
BEFORE = os.path.join(DATA, "before.xplane.pb.gz")
AFTER = os.path.join(DATA, "after.xplane.pb.gz")


def test_diff_gates_and_renders_as_the_cli():
    d = roofline.diff(BEFORE, AFTER, chip="h100-sxm", fail_if="mfu<-2% or step_time>+5%")
    assert d.failed
    assert d.reasons[0].startswith("step_time>+5%: step_time changed +")
    cli = os.environ.get("ROOFLINE_CLI")
    if not cli:
        pytest.skip("ROOFLINE_CLI is not set (CTest sets it): the CLI comparison needs the command")
    out = subprocess.run([cli, "diff", BEFORE, AFTER, "--chip", "h100-sxm", "--fail-if", "mfu<-2% or step_time>+5%",
                          "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 1
    assert d.to_json() == out.stdout


def test_diff_takes_reports_and_passes_a_gate_it_does_not_hold():
    r = roofline.report(BEFORE, chip="h100-sxm")
    d = roofline.diff(r, r, fail_if="step_time>+1%")
    assert not d.failed and d.reasons == []
    value = json.loads(d.to_json())
    assert all(op["change"] == "changed" for op in value["ops"])
    assert "step time" in d.to_text()


def test_diff_bad_gate_names_the_place():
    r = roofline.report(BEFORE, chip="h100-sxm")
    with pytest.raises(ValueError, match="at character 5: expected a number"):
        roofline.diff(r, r, fail_if="mfu<<2%")
