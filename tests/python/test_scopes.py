"""Report.scopes: the ops of a report totalled per name scope, as `roofline report --by scope` does."""
import json
import os
import subprocess

import pytest

import roofline

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, "..", "data", "diff", "before.xplane.pb.gz")


def _nodes(node):
    for c in node["children"]:
        yield c
        yield from _nodes(c)


def test_scopes_tree_names_the_mlp_and_sums_to_the_report():
    r = roofline.report(BEFORE, chip="h100-sxm")
    tree = r.scopes(depth=2)
    paths = {n["path"] for n in _nodes(tree)}
    assert "block/mlp" in paths
    assert tree["ops"] == len(r.ops)
    assert tree["predicted_s"] == pytest.approx(r.summary.predicted_s)
    assert sum(c["measured_s"] for c in tree["children"]) == pytest.approx(tree["measured_s"])
    assert any(o["scope"].startswith("block/mlp") for o in r.ops)
    assert "<details open>" in r.scopes_to("html")
    with pytest.raises(ValueError):
        r.scopes(depth=0)
    cli = os.environ.get("ROOFLINE_CLI")
    if not cli:
        pytest.skip("ROOFLINE_CLI is not set (CTest sets it): the CLI comparison needs the command")
    out = subprocess.run([cli, "report", BEFORE, "--chip", "h100-sxm", "--by", "scope", "--depth", "2", "--format",
                          "json"], capture_output=True, text=True)
    assert out.returncode == 0
    assert json.loads(out.stdout)["scopes"] == tree
    assert r.scopes_to("json", depth=2) == out.stdout
