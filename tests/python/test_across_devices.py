"""Stragglers and collective waits across devices from Python: the
report's and the statistics' "across_devices", as the CLI prints them."""

import json
import subprocess

import pytest

import roofline


def cli_json(cli, command, path):
    done = subprocess.run([cli, command, str(path), "--format", "json"], capture_output=True, check=True)
    return json.loads(done.stdout)


def test_report_across_devices_is_the_cli_json(cli, repo):
    # The TPU v6e x4 profile: 4 devices, one all-reduce called 3 times on each.
    path = repo.parent / "shared" / "data" / "real" / "xprof" / "tpu_v6e_x4_inference_2.xplane.pb"
    if not path.exists():
        pytest.skip(f"{path} is absent (the real profiles live in ../shared/data/real beside the checkout)")
    r = roofline.report(path)
    across = r.across_devices
    assert across == cli_json(cli, "report", path)["across_devices"]
    assert [d["device"] for d in across["devices"]] == [d["name"] for d in r.devices]
    assert [c["calls"] for c in across["collectives"]] == [3]
    assert across["steps"] == []  # the profile marks no steps
    assert roofline.stats(path).across_devices == cli_json(cli, "stats", path)["across_devices"]


def test_one_device_has_none(repo):
    path = repo / "tests" / "data" / "trace" / "kineto_small.json"
    assert roofline.report(path).across_devices is None
    assert roofline.stats(path).across_devices is None
    assert "across_devices" not in json.loads(roofline.report(path).to_json())
