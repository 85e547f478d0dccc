"""Partial statistics from Python (docs/partials.md): roofline.stats_partial,
merge_partials, read_partial, pickling, and the Dask recipe of
examples/python/dask_stats.py."""

import json
import pickle
import re
import subprocess
import sys

import pytest

import roofline


def cli_out(cli, *args):
    done = subprocess.run([cli, *map(str, args)], capture_output=True, check=True)
    return done.stdout.decode("utf-8")


@pytest.fixture(scope="module")
def data(repo):
    return repo / "tests" / "data" / "trace"


@pytest.fixture(scope="module")
def three(data):
    """Three fixtures of three formats and hosts (tests/trace/merge_recipe_test.sh merges them too)."""
    return [data / "jax_cpu8.xplane.pb", data / "kineto_small.json", data / "tsl_tpu_nested.json"]


@pytest.fixture
def ranks(data, tmp_path):
    """Five ranks of one GPU job: copies of one Kineto trace, each its own host
    (a file's stem names the host of its devices), listed out of name order
    so that a merge that reordered them would name another source."""
    src = (data / "kineto_small.json.gz").read_bytes()
    files = [tmp_path / f"rank{r}.json.gz" for r in (3, 0, 4, 1, 2)]
    for f in files:
        f.write_bytes(src)
    return files


def test_partial_is_the_cli_partial(cli, three):
    for trace in three:
        p = roofline.stats_partial(trace)
        assert p.to_json() == cli_out(cli, "stats", trace, "--partial")
        assert p.files == [str(trace)] and p.source == str(trace)
    p = roofline.stats_partial(three, jobs=2)
    assert p.to_json() == cli_out(cli, "stats", *three, "--partial", "--jobs", 2)
    assert roofline.stats_partial(three[0], device=3).to_json() == cli_out(cli, "stats", three[0], "--partial",
                                                                           "--device", 3)


def test_merged_partials_are_one_pass(cli, three, tmp_path):
    one_pass = roofline.stats(three)
    parts = [roofline.stats_partial(t) for t in three]
    merged = roofline.merge_partials(parts).stats()
    assert isinstance(merged, roofline.Stats)
    assert merged.to_json() == one_pass.to_json()
    assert merged.to_csv() == one_pass.to_csv() and merged.to_json(top=2) == one_pass.to_json(top=2)
    assert merged.devices == one_pass.devices and merged.ops == one_pass.ops  # json_value: same types too
    assert [type(d["busy_s"]) for d in merged.devices] == [float] * len(merged.devices)
    # Associative: ((0 1) 2) and (0 (1 2)) are the merge of all three.
    left = roofline.merge_partials([roofline.merge_partials(parts[:2]), parts[2]])
    right = roofline.merge_partials([parts[0], roofline.merge_partials(parts[1:])])
    assert left.to_json() == right.to_json() == roofline.merge_partials(parts).to_json()
    # ... and `roofline merge PART...` over the CLI's partial files prints the same.
    files = []
    for i, t in enumerate(three):
        files.append(tmp_path / f"part{i}.json")
        cli_out(cli, "stats", t, "--partial", "-o", files[-1])
    assert cli_out(cli, "merge", *files, "--format", "json") == merged.to_json()
    # Not commutative: the source names the inputs in the order merged.
    swapped = roofline.merge_partials([parts[1], parts[0]])
    assert swapped.source == f"{three[1]} {three[0]}"


def test_pickle_round_trip(three):
    p = roofline.merge_partials([roofline.stats_partial(t) for t in three])
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        q = pickle.loads(pickle.dumps(p, protocol=protocol))
        assert isinstance(q, roofline.StatsPartial) and q.to_json() == p.to_json()
        assert q.stats().to_json() == p.stats().to_json()


def test_read_partial_of_cli_files(cli, three, tmp_path):
    path = tmp_path / "part.json"
    cli_out(cli, "stats", three[0], "--partial", "-o", path)
    expected = roofline.stats_partial(three[0]).to_json()
    assert roofline.read_partial(path).to_json() == expected  # os.PathLike: a file
    assert roofline.read_partial(str(path)).to_json() == expected  # str not beginning with '{': a path
    text = path.read_text()
    assert roofline.read_partial(text).to_json() == expected  # str beginning with '{': the text
    assert roofline.read_partial(text.encode()).to_json() == expected  # bytes: the text
    assert roofline.read_partial("  \n" + text).to_json() == expected


def test_errors_are_located(three, tmp_path):
    with pytest.raises(FileNotFoundError):
        roofline.read_partial(tmp_path / "absent.json")
    with pytest.raises(FileNotFoundError):
        roofline.stats_partial(tmp_path / "absent.xplane.pb")
    with pytest.raises(FileNotFoundError):
        roofline.stats_partial([three[0], tmp_path / "absent.xplane.pb"])
    # A damaged partial: rows whose self time runs count no occurrence.
    doc = json.loads(roofline.stats_partial(three[0]).to_json())
    doc["rows"][0]["self_ps"][0][1] = 0
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="^" + re.escape(f"{damaged}: /rows/0/self_ps/0/1: ")):
        roofline.read_partial(damaged)
    with pytest.raises(ValueError, match=r"^part 7: /rows/0/self_ps/0/1: "):
        roofline.read_partial(json.dumps(doc), origin="part 7")
    with pytest.raises(ValueError, match=r"^<partial text>: byte "):
        roofline.read_partial(b"{\"format\": ")
    p = roofline.stats_partial(three[0])
    with pytest.raises(ValueError, match="in two partials"):
        roofline.merge_partials([p, p])
    with pytest.raises(ValueError, match="no partial given"):
        roofline.merge_partials([])
    with pytest.raises(TypeError):
        roofline.merge_partials([p, p.to_json()])
    with pytest.raises(ValueError, match="jobs"):
        roofline.stats_partial(three[0], jobs=0)
    with pytest.raises(TypeError, match="unknown read limit"):
        roofline.stats_partial(three[0], max_event=5)
    with pytest.raises(ValueError, match="no device 99 with op events"):
        roofline.stats_partial(three[0], device=99)


def run_dask_example(repo, scheduler, files):
    done = subprocess.run([sys.executable, str(repo / "examples" / "python" / "dask_stats.py"),
                           "--scheduler", scheduler, "--workers", "2", *map(str, files)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("scheduler", ["processes", "threads"])
def test_dask_recipe_is_one_pass(repo, ranks, three, scheduler):
    pytest.importorskip("dask")
    for files in (ranks, ranks + three):
        one_pass = roofline.stats(files).to_json()
        assert run_dask_example(repo, scheduler, files) == one_pass
    # The ranks' source lists them in the order given, not in name order.
    assert json.loads(one_pass)["source"].split()[:5] == [str(f) for f in ranks]
