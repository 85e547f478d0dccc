#!/usr/bin/env python3
"""Writes tests/data/trace/kineto_scopes.json: a hand-made PyTorch profiler
(Kineto) trace whose kernels ran under nested scope ranges, for the eager
`report --by scope` tests (docs/report.md, "By scope").

One step on an H100. The host thread runs, inside ProfilerStep#1:

  record_function "forward"                    (user_annotation)
    nn.Module: Net_0                           (python_function, with_modules=True)
      nn.Module: Linear_0   aten::mm [64,128]x[128,128]  -> gemm, 30 us
      nn.Module: Linear_1   aten::mm, the same shapes     -> gemm, 20 us
      record_function "act" aten::relu                    -> relu,  5 us
  aten::add, outside any range                            -> add,   5 us
  aten::mul, outside any host range; its kernel runs inside the GPU
  annotation "optimizer" (gpu_user_annotation)            -> mul,  10 us

So the two matmuls are one op (one launcher, one shape) split over two
scopes by their occurrences (half each) and their self time (30 : 20); the
relu's path is forward/Net_0/act; the mul's is optimizer, from the device;
the add has none. Usage: python3 scripts/make_kineto_scopes_fixture.py [OUT]
"""
import json
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
OUT = REPO / "tests/data/trace/kineto_scopes.json"
HOST = {"pid": 100, "tid": 100}
GPU = {"pid": 0, "tid": 7}


def x(cat, name, ts, dur, where, **args):
    e = {"ph": "X", "cat": cat, "name": name, **where, "ts": float(ts), "dur": float(dur)}
    if args:
        e["args"] = args
    return e


def events():
    ev = [
        x("user_annotation", "ProfilerStep#1", 1000, 500, HOST, **{"External id": 1}),
        x("user_annotation", "forward", 1005, 395, HOST, **{"External id": 2}),
        x("python_function", "nn.Module: Net_0", 1008, 382, HOST, **{"Python id": 10}),
        x("python_function", "nn.Module: Linear_0", 1010, 40, HOST, **{"Python id": 11}),
        x("python_function", "nn.Module: Linear_1", 1060, 40, HOST, **{"Python id": 12}),
        x("user_annotation", "act", 1110, 30, HOST, **{"External id": 3}),
    ]
    mm = {"Input Dims": [[64, 128], [128, 128]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}
    ew = {"Input Dims": [[64, 128], [64, 128]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}
    # (op, its args, op start, launch start, kernel name, kernel start, kernel dur)
    launches = [
        ("aten::mm", mm, 1012, 1015, "sm90_xmma_gemm_bf16bf16_bf16f32", 1100, 30),
        ("aten::mm", mm, 1062, 1065, "sm90_xmma_gemm_bf16bf16_bf16f32", 1140, 20),
        ("aten::relu", {"Input Dims": [[64, 128]], "Input type": ["c10::BFloat16"]}, 1112, 1115,
         "void at::native::vectorized_elementwise_kernel<4, \"relu\">", 1170, 5),
        ("aten::add", ew, 1420, 1425, "void at::native::vectorized_elementwise_kernel<4, \"add\">", 1250, 5),
        ("aten::mul", ew, 1445, 1450, "void at::native::vectorized_elementwise_kernel<4, \"mul\">", 1310, 10),
    ]
    for i, (op, args, op_ts, launch_ts, kernel, k_ts, k_dur) in enumerate(launches):
        ext, corr = 20 + i, 40 + i
        ev.append(x("cpu_op", op, op_ts, 20, HOST, **{"External id": ext, **args}))
        ev.append(x("cuda_runtime", "cudaLaunchKernel", launch_ts, 4, HOST, **{"External id": ext, "correlation": corr}))
        ev.append(x("kernel", kernel, k_ts, k_dur, GPU,
                    **{"External id": ext, "correlation": corr, "device": 0, "stream": 7}))
    ev.append(x("gpu_user_annotation", "ProfilerStep#1", 1100, 260, GPU, **{"External id": 1}))
    ev.append(x("gpu_user_annotation", "optimizer", 1300, 50, GPU, **{"External id": 5}))
    ev.append({"name": "process_name", "ph": "M", "ts": 1000, "pid": 100, "tid": 0, "args": {"name": "python3"}})
    ev.append({"name": "thread_name", "ph": "M", "ts": 1000, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}})
    return ev


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    doc = {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
                              "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
        "baseTimeNanoseconds": 1700000000000000000,
        "traceEvents": events(),
    }
    lines = ",\n".join("  " + json.dumps(e) for e in doc.pop("traceEvents"))
    head = json.dumps(doc)[:-1]
    out.write_text(head + ', "traceEvents": [\n' + lines + "\n]}\n")
    print(f"{out}: {out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
