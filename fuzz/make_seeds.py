#!/usr/bin/env python3
"""Writes the generated fuzz seeds into fuzz/corpus/ (run from anywhere).

Seeds give libFuzzer a start on each path a real trace takes:
  kineto_*.json           PyTorch Kineto traces whose cpu_op carries
                          "Input Dims" for aten::bmm, aten::linear, SDPA
                          flash attention (B,H,S,D) and the flash kernel's
                          own op (B,S,H,D), and a matmul with a zero-size
                          dimension ([[64, 0], [0, 256]]): the report's
                          costing from input shapes (src/match/cost_input_dims.cc).
  kineto_scopes.json      kernels launched under record_function and
                          nn.Module ranges, a GPU annotation, ranges that
                          overlap without nesting and one never closed
                          (src/trace/chrome/kineto_scopes.cc).
  kineto_scopes_deep.json ranges nested 200 deep (past the 64-range cap)
                          and a 4 kB range name (past the 256-byte cut).
  blank_bomb.json.gz      a small trace followed by 8 MiB of blanks, gzip'd
                          to about 8 kB: the streamed inflate path.
  gzip_stat.xplane.pb     an XSpace whose op category is a gzip'd string
                          stat (XStat field 8), as XProf writes long names.
  stat_bomb.xplane.pb     two gzip'd stats of 4 MiB each (about 8 kB gzip'd):
                          the inflated-bytes budget across stats.
  gzip_stat.xplane.pb.gz  the first XSpace gzip'd whole (report_fuzz reads
                          any bytes, gzip'd XSpaces included).
  host_gaps.xplane.pb     a host plane before a TPU plane whose ops leave
                          idle gaps: host events in gaps, out of them, out
                          of order, with a device_ordinal stat, naming an
                          op the TPU names too (the statistics' two partial
                          reads, src/measure/stats_file_read.cc).
Field numbers follow xplane.proto, as tests/trace/xspace_writer.hpp does.
The bombs stay small on purpose: libFuzzer's -max_len becomes the largest
seed, and inflate output is at most about 1000 times its input.
"""
import gzip
import json
import os
import struct

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


# --- protobuf wire encoding ------------------------------------------------
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def f_varint(field, v):
    return varint(field << 3) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(field << 3 | 2) + varint(len(b)) + b


def f_double(field, d):
    return varint(field << 3 | 1) + struct.pack("<d", d)


def gz(b):
    # mtime=0: the same bytes on every run.
    return gzip.compress(b, compresslevel=9, mtime=0)


# --- Kineto JSON -----------------------------------------------------------
def kineto(ops):
    """One cpu_op -> cudaLaunchKernel -> kernel chain per (op, dims, types, kernel)."""
    events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 100,
               "ts": 1000.0, "dur": 900.0, "args": {"External id": 1}}]
    t = 1010.0
    for i, (op, dims, types, kernel) in enumerate(ops):
        ext, corr = 2 + i, 11 + i
        events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 100, "tid": 100, "ts": t, "dur": 20.0,
                       "args": {"External id": ext, "Input Dims": dims, "Input type": types}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
                       "ts": t + 5, "dur": 5.0, "args": {"External id": ext, "correlation": corr}})
        events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": t + 100,
                       "dur": 30.5, "args": {"External id": ext, "correlation": corr, "device": 0,
                                             "stream": 7, "grid": [132, 1, 1]}})
        t += 40
    trace = {"schemaVersion": 1,
             "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
                                   "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
             "traceEvents": events}
    return json.dumps(trace, indent=0).encode()


BF16 = "c10::BFloat16"
KINETO = {
    "kineto_bmm.json": [("aten::bmm", [[8, 64, 128], [8, 128, 32]], [BF16, BF16],
                         "sm90_xmma_gemm_bf16bf16_bf16f32_batched")],
    "kineto_linear.json": [("aten::linear", [[64, 512], [1024, 512], [1024]], [BF16, BF16, BF16],
                            "sm90_xmma_gemm_bf16bf16_bf16f32_bias")],
    "kineto_sdpa_flash.json": [
        ("aten::_scaled_dot_product_flash_attention", [[2, 8, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64], [], []],
         [BF16, BF16, BF16, "Scalar", "Scalar"], "pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>"),
        ("aten::_flash_attention_forward", [[2, 128, 8, 64], [2, 128, 8, 64], [2, 128, 8, 64]],
         [BF16, BF16, BF16], "pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>")],
    "kineto_zero_dims.json": [("aten::mm", [[64, 0], [0, 256]], [BF16, BF16],
                               "sm90_xmma_gemm_bf16bf16_bf16f32"),
                              ("aten::bmm", [[0, 64, 128], [0, 128, 32]], [BF16, BF16],
                               "sm90_xmma_gemm_bf16bf16_bf16f32_batched")],
}


# --- XSpace ----------------------------------------------------------------
HLO_CATEGORY = 7  # stat metadata id; any id works, the name is what counts


def stat_metadata(sid, name):
    return f_varint(1, sid) + f_bytes(2, f_varint(1, sid) + f_bytes(2, name))


def event_metadata(mid, name, display, stats=b""):
    return f_varint(1, mid) + f_bytes(2, f_varint(1, mid) + f_bytes(2, name) + f_bytes(4, display) + stats)


def event(mid, offset_ps, duration_ps):
    return f_varint(1, mid) + f_varint(2, offset_ps) + f_varint(3, duration_ps)


def xspace(categories):
    """One TPU plane, one 'XLA Ops' line, one op per gzip'd category string."""
    plane = f_varint(1, 2) + f_bytes(2, "/device:TPU:0")
    line = f_varint(1, 3) + f_bytes(2, "XLA Ops")
    for i, _ in enumerate(categories):
        line += f_bytes(4, event(11 + i, 10 * i, 5))
    plane += f_bytes(3, line)
    for i, cat in enumerate(categories):
        stats = f_bytes(5, f_varint(1, HLO_CATEGORY) + f_bytes(8, gz(cat)))
        plane += f_bytes(4, event_metadata(11 + i, f"%f{i} = f32[] add(f32[] %a, f32[] %b)", f"f{i}", stats))
    plane += f_bytes(5, stat_metadata(HLO_CATEGORY, "hlo_category"))
    plane += f_bytes(6, f_varint(1, 100) + f_bytes(5, "TPU v6 Lite"))
    plane += f_bytes(5, stat_metadata(100, "device_type_string"))
    return f_bytes(1, plane) + f_bytes(4, "tpu-host")


def host_gaps():
    """A host plane, then a TPU whose ops run [0, 10), [20, 30), [40, 45) and
    [60, 70) ms: the host's events overlap the idle gaps or not."""
    ms = 10**9
    ops = f_varint(1, 3) + f_bytes(2, "XLA Ops") + f_varint(3, 1000)
    for mid, at, dur in ((1, 0, 10), (1, 20, 10), (2, 40, 5), (1, 60, 10)):
        ops += f_bytes(4, event(mid, at * ms, dur * ms))
    flops = f_bytes(5, f_varint(1, 5) + f_varint(4, 200))
    tpu = f_varint(1, 2) + f_bytes(2, "/device:TPU:0") + f_bytes(3, ops)
    tpu += f_bytes(4, event_metadata(1, "fusion.1", "fusion.1")) + f_bytes(4, event_metadata(2, "b", "b", flops))
    tpu += f_bytes(5, stat_metadata(5, "flops"))
    ordinal = f_bytes(4, f_varint(1, 6) + f_varint(4, 1))
    thread = f_varint(1, 7) + f_bytes(2, "python/12") + f_varint(3, 1000)
    for mid, at, dur, stats in ((1, 0, 100, b""), (2, 12, 6, b""), (2, 35, 5, b""), (3, 62, 2, b""),
                                (4, 15, 1, ordinal), (4, 80, 1, b"")):
        thread += f_bytes(4, event(mid, at * ms, dur * ms) + stats)
    host = f_varint(1, 9) + f_bytes(2, "/host:CPU") + f_bytes(3, thread)
    for mid, name in ((1, "PjitFunction(f)"), (2, "wait"), (3, "between"), (4, "b")):
        host += f_bytes(4, event_metadata(mid, name, name))
    host += f_bytes(5, stat_metadata(6, "device_ordinal"))
    return f_bytes(1, host) + f_bytes(1, tpu) + f_bytes(4, "tpu-host")


def scope_trace(ranges, launch_us):
    """A Kineto trace: `ranges` (name, cat, ts, dur) on the host thread and
    one kernel whose launch starts at `launch_us`, inside a GPU annotation."""
    ev = [{"ph": "X", "cat": c, "name": n, "pid": 1, "tid": 1, "ts": ts, "dur": dur} for n, c, ts, dur in ranges]
    ev += [{"ph": "B", "cat": "user_annotation", "name": "never closed", "pid": 1, "tid": 1, "ts": 1},
           {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": launch_us - 1, "dur": 3,
            "args": {"External id": 5, "Input Dims": [[8, 8], [8, 8]], "Input type": ["float", "float"]}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": launch_us,
            "dur": 1, "args": {"External id": 5, "correlation": 9}},
           {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 9000, "dur": 2,
            "args": {"External id": 5, "correlation": 9, "device": 0, "stream": 7}},
           {"ph": "X", "cat": "gpu_user_annotation", "name": "gpu range", "pid": 0, "tid": 7, "ts": 8990, "dur": 20}]
    return json.dumps({"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                       "traceEvents": ev}).encode()


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    for name, ops in KINETO.items():
        for target in ("report_fuzz", "trace_json_fuzz"):
            write(target, name, kineto(ops))
    nested = [("ProfilerStep#1", "user_annotation", 0, 100), ("forward", "user_annotation", 2, 90),
              ("nn.Module: Net_0", "python_function", 3, 80), ("a", "user_annotation", 4, 40),
              ("b", "user_annotation", 30, 40)]
    deep = [("r%d" % (i % 5), "user_annotation", i * 0.001, 100 - i * 0.002) for i in range(200)]
    for target in ("report_fuzz", "trace_json_fuzz"):
        write(target, "kineto_scopes.json", scope_trace(nested, 35))
        write(target, "kineto_scopes_deep.json", scope_trace(deep + [("x" * 4096, "user_annotation", 4, 60)], 50))
    small = kineto(KINETO["kineto_bmm.json"])
    write("trace_json_fuzz", "blank_bomb.json.gz", gz(small + b" " * (8 << 20)))
    gz_stat = xspace([b"non-fusion elementwise", b"convolution fusion"])
    stat_bomb = xspace([b"x" * (4 << 20), b"y" * (4 << 20)])
    for target in ("report_fuzz", "trace_xplane_fuzz"):
        write(target, "gzip_stat.xplane.pb", gz_stat)
        write(target, "stat_bomb.xplane.pb", stat_bomb)
    write("report_fuzz", "gzip_stat.xplane.pb.gz", gz(gz_stat))
    write("trace_xplane_fuzz", "host_gaps.xplane.pb", host_gaps())


if __name__ == "__main__":
    main()
