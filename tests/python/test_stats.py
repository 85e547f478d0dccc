"""roofline.stats(path): `roofline stats` from Python."""

import json
import subprocess
import sys

import pytest

import roofline


def cli_stats(cli, *args, fmt="json"):
    done = subprocess.run([cli, "stats", *map(str, args), "--format", fmt], capture_output=True, check=True)
    return done.stdout.decode("utf-8")


@pytest.fixture(scope="module")
def traces(repo):
    data = repo / "tests" / "data" / "trace"
    v6e = repo.parent / "shared" / "data" / "real" / "xprof" / "tpu_v6e_x4_inference_2.xplane.pb"
    if not v6e.exists():
        pytest.skip(f"{v6e} is absent (the real profiles live in ../shared/data/real beside the checkout)")
    return [v6e, data / "kineto_small.json.gz", data / "jax_cpu8.xplane.pb"]


def test_json_and_csv_are_the_cli_output(cli, traces):
    for trace in traces:
        s = roofline.stats(trace)
        assert s.to_json() == cli_stats(cli, trace)
        assert s.to_csv() == cli_stats(cli, trace, fmt="csv")
        assert s.to_json(top=2) == cli_stats(cli, trace, "--top", 2)
    profile = traces[0]
    assert roofline.stats(profile, device=2).to_json() == cli_stats(cli, profile, "--device", 2)


def test_text_is_the_cli_output(cli, traces):
    # The text renderer lives in the library (roofline/report/stats_text.hpp):
    # Python prints what the CLI prints, to the byte, whatever the top.
    for trace in traces:
        s = roofline.stats(trace)
        assert s.to_text() == cli_stats(cli, trace, fmt="text")
        assert s.to_text(top=3) == cli_stats(cli, trace, "--top", 3, fmt="text")
        assert s.to_text(top=None) == cli_stats(cli, trace, "--top", 1000000, fmt="text")
    profile = traces[0]
    assert roofline.stats(profile, device=2).to_text() == cli_stats(cli, profile, "--device", 2, fmt="text")


def test_fields_are_the_json_figures(cli, traces):
    for trace in traces:
        s = roofline.stats(trace)
        j = json.loads(cli_stats(cli, trace))
        assert s.devices == j["devices"] and s.ops == j["ops"] and s.categories == j["categories"]
        assert (s.busy_s, s.idle_s, s.duty_cycle, s.warnings) == (j["busy_s"], j["idle_s"], j["duty_cycle"],
                                                                  j["warnings"])
        # roofline/measure/op_stats.hpp: over all devices, busy and idle are sums
        # and the duty cycle is busy over the sum of windows.
        assert s.busy_s == pytest.approx(sum(d["busy_s"] for d in s.devices), rel=1e-12)
        assert s.idle_s == pytest.approx(sum(d["idle_s"] for d in s.devices), rel=1e-12)
        # ... and each device's busy time splits into compute, collective and data movement.
        for d in s.devices:
            assert d["busy_s"] == pytest.approx(d["compute_s"] + d["collective_s"] + d["data_movement_s"], rel=1e-9)


def full_json(cli, trace):
    return cli_stats(cli, trace, "--host-timelines-up-to", "1e12")


def test_host_timelines_past_the_size_limit(cli, traces, tmp_path):
    # The example's TPU host plane past a 100 kB limit: read without its host
    # timelines, as the CLI's --host-timelines-up-to reads it.
    profile = traces[0]
    s = roofline.stats(profile, host_timelines_up_to_bytes=100_000)
    assert s.to_json() == cli_stats(cli, profile, "--host-timelines-up-to", 100_000)
    assert any("host timelines not read" in w for w in s.warnings)
    assert all(not g["host"] for d in s.devices for g in d["idle_gaps"])
    # The default is the CLI's (64 MiB, far above this host plane); None: no limit.
    assert roofline.STATS_HOST_TIMELINES_UP_TO_BYTES == 64 << 20
    for read in (roofline.stats(profile), roofline.stats(profile, host_timelines_up_to_bytes=None)):
        assert read.to_json() == cli_stats(cli, profile)
        assert any(g["host"] for d in read.devices for g in d["idle_gaps"])
    # The partial too (its devices named after the file, as among several).
    ps = roofline.stats_partial(profile, host_timelines_up_to_bytes=100_000).stats()
    assert ps.warnings == s.warnings
    assert all(not g["host"] for d in ps.devices for g in d["idle_gaps"])
    full = roofline.stats_partial(profile).stats()
    assert any(g["host"] for d in full.devices for g in d["idle_gaps"])
    # A float byte count is taken as the CLI takes 1e12; anything else is refused by name.
    assert roofline.stats(profile, host_timelines_up_to_bytes=1e12).to_json() == full_json(cli, profile)
    for bad in (-1, 0.5, "64M", True):
        with pytest.raises(ValueError, match="host_timelines_up_to_bytes"):
            roofline.stats(profile, host_timelines_up_to_bytes=bad)


def test_pandas(traces, monkeypatch):
    pandas = pytest.importorskip("pandas")
    s = roofline.stats(traces[0])
    df = s.to_pandas()
    assert isinstance(df, pandas.DataFrame) and len(df) == len(s.ops)
    assert list(df["total_s"]) == [o["total_s"] for o in s.ops]
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"Stats\.to_pandas\(\) needs pandas"):
        s.to_pandas()


def test_errors_are_located(repo, traces, tmp_path):
    with pytest.raises(FileNotFoundError):
        roofline.stats(tmp_path / "absent.xplane.pb")
    gz = traces[1].read_bytes()
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gz[: len(gz) // 2])
    with pytest.raises(ValueError, match=r"cut\.json\.gz: "):
        roofline.stats(cut)
    text = (repo / "tests" / "data" / "trace" / "kineto_small.json").read_text()
    broken = tmp_path / "broken.json"
    broken.write_text(text.replace('"dur": 20.000', '"dur": "20"', 1))
    with pytest.raises(ValueError, match=r"broken\.json: .*dur"):
        roofline.stats(broken)
    with pytest.raises(ValueError, match="no device 7 with op events"):
        roofline.stats(traces[0], device=7)


def test_several_hosts_as_a_list_or_a_glob(cli, repo, tmp_path):
    # Three ranks of one job: the same trace under three host names.
    src = (repo / "tests" / "data" / "trace" / "kineto_small.json").read_bytes()
    for rank in range(3):
        (tmp_path / f"rank{rank}.json").write_bytes(src)
    files = sorted(tmp_path.glob("rank*.json"))
    listed = roofline.stats(files, jobs=2)
    assert listed.to_json() == cli_stats(cli, *files, "--jobs", 2)
    globbed = json.loads(roofline.stats(str(tmp_path / "rank*.json"), jobs=1).to_json())
    as_listed = json.loads(listed.to_json())
    assert globbed.pop("source").endswith("rank*.json")  # the source names the inputs as given
    as_listed.pop("source")
    assert globbed == as_listed
    assert len(listed.devices) == 3 * len(roofline.stats(files[0]).devices)
    with pytest.raises(ValueError, match="jobs"):
        roofline.stats(files, jobs=0)
    with pytest.raises(FileNotFoundError, match="no file matches the pattern"):
        roofline.stats(str(tmp_path / "nothing*.json"))
