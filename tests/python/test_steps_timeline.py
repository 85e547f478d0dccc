"""Report.steps / Stats.steps (`--by step`), Report.to_perfetto (`--format
perfetto`) and eager PyTorch scopes from Python: each the CLI's output."""
import json
import subprocess

import pytest

import roofline


def cli_out(cli, *args):
    return subprocess.run([cli, *map(str, args)], capture_output=True, check=True).stdout.decode("utf-8")


@pytest.fixture(scope="module")
def kineto(repo):
    return repo / "tests" / "data" / "trace" / "kineto_small.json"


def test_report_steps_are_the_cli_by_step(cli, kineto):
    r = roofline.report(kineto)
    steps = r.steps()
    step = steps["devices"][0]["steps"][0]
    assert step["name"] == "ProfilerStep#1"
    # kineto_small: 104 us of GPU step, 74 us of it busy (tests/trace/chrome_json_test.cc).
    assert step["duration_s"] == pytest.approx(104e-6)
    assert step["duty_cycle"] == pytest.approx(74 / 104)
    assert step["predicted_s"] > 0
    assert steps == json.loads(cli_out(cli, "report", kineto, "--by", "step", "--format", "json"))
    assert r.steps_to("text", top=5) == cli_out(cli, "report", kineto, "--by", "step", "--top", 5)
    with pytest.raises(ValueError):
        r.steps_to("csv")


def test_stats_steps_are_the_cli_by_step(cli, kineto):
    s = roofline.stats(kineto)
    assert s.steps() == json.loads(cli_out(cli, "stats", kineto, "--by", "step", "--format", "json"))
    assert s.steps("text", top=3) == cli_out(cli, "stats", kineto, "--by", "step", "--top", 3)
    merged = roofline.merge_partials([roofline.stats_partial(kineto)]).stats()
    with pytest.raises(ValueError, match="partials|roofline.stats"):
        merged.steps()


def test_to_perfetto_is_the_cli_timeline(cli, kineto, tmp_path):
    r = roofline.report(kineto, chip="h100-sxm")
    out = tmp_path / "t.json"
    text = r.to_perfetto(out)
    assert out.read_text(encoding="utf-8") == text
    doc = json.loads(text)
    events = doc["traceEvents"]
    assert any(e.get("ph") == "X" for e in events)
    cli_file = tmp_path / "cli.json"
    cli_out(cli, "report", kineto, "--chip", "h100-sxm", "--format", "perfetto", "-o", cli_file)
    assert cli_file.read_text(encoding="utf-8") == text


def test_eager_scopes_from_python(repo, cli):
    trace = repo / "tests" / "data" / "trace" / "kineto_scopes.json"
    r = roofline.report(trace, chip="h100-sxm")
    tree = r.scopes(depth=3)
    forward = next(c for c in tree["children"] if c["path"] == "forward")
    assert forward["measured_s"] == pytest.approx(55e-6)
    net = forward["children"][0]
    assert [c["name"] for c in net["children"]] == ["Linear_0", "Linear_1", "act"]
    mm = next(o for o in r.ops if o["module"] == "aten::mm")
    assert mm["scope"] == "forward/Net_0"
    assert r.scopes_to("json", depth=3) == cli_out(cli, "report", trace, "--chip", "h100-sxm", "--by", "scope",
                                                   "--format", "json")
