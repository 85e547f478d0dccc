#!/usr/bin/env bash
# The pod-scale generator and what `roofline stats` finds in its output, at
# smoke size: 3 Kineto ranks of 2 repeats each, where make_pod_profile plants
# the straggler of repeat r on host (r mod 3) (bench/make_pod_profile.cc).
# Every step's slowest device must be the planted host, and every rank but
# the straggler waits in the NCCL kernel of each step; 2 XPlane hosts must
# read and show the all-reduce matched across all 8 TPUs. Skips (77) without
# ../shared/data/real, whose traces the generator repeats.
#
#   bench/pod_smoke_test.sh ROOFLINE MAKE_POD_PROFILE
set -euo pipefail
roofline=$1
make_pod=$2
shared=$(cd "$(dirname "$0")/.." && pwd)/../shared/data/real
for f in hta/a100-80gb_16rank_rank0.json.gz xprof/tpu_v6e_x4_inference_2.xplane.pb; do
  [ -f "$shared/$f" ] || { echo "SKIPPED: $shared/$f is absent (the real profiles live in ../shared)"; exit 77; }
done
dir=$(mktemp -d /tmp/roofline_pod_smoke_XXXXXX)
trap 'rm -rf "$dir"' EXIT

"$make_pod" --format kineto --hosts 3 --bytes-per-host 30M --out "$dir/k" >/dev/null
"$roofline" stats "$dir/k" --format json --jobs 2 >"$dir/k.json"
python3 - "$dir/k.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["across_devices"]
steps = a["steps"]
# 5 ProfilerSteps per repeat from #550 (make_pod_profile renumbers them).
assert len(steps) == 10, f"expected 10 steps (2 repeats x 5), got {len(steps)}"
for s in steps:
    r = (int(s["step"].split("#")[1]) - 550) // 5
    planted = "host%02d" % (r % 3)
    assert s["slowest"]["host"] == planted, f'{s["step"]}: slowest {s["slowest"]["host"]}, planted {planted}'
    assert s["skew_s"] > 0, s
waits = {d["host"]: d["collective_wait_s"] for d in a["devices"]}
assert all(w > 0 for w in waits.values()), waits  # each host is the straggler of none or one repeat, waits in the other
print("kineto: the planted straggler is the slowest device of all", len(steps), "steps")
PY

"$make_pod" --format xplane --hosts 2 --bytes-per-host 4M --out "$dir/x" >/dev/null
"$roofline" stats "$dir/x" --format json --jobs 2 >"$dir/x.json"
python3 - "$dir/x.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
a = j["across_devices"]
assert len(j["devices"]) == 8, len(j["devices"])
c = a["collectives"]
assert len(c) == 1 and c[0]["name"] == "all-reduce" and c[0]["occurrences"] > 0, c
print("xplane: all-reduce matched in", c[0]["occurrences"], "calls across 8 TPUs of 2 hosts")
PY
