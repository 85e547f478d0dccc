"""What a Python call of roofline.predict(Matmul, chip) costs, to set beside
the C++ call (bench/predict_bench.cc, BM_PredictMatmul). Issue 13's target:
less than 1 us more than C++.

  PYTHONPATH=build/python python3 bench/python/predict_overhead.py
  build/bench/predict_bench --benchmark_filter=BM_PredictMatmul

Prints the best of several timeit repeats, in nanoseconds per call, for the
call alone (op and chip built once) and for building the Matmul too.
"""

import timeit

import roofline


def best_ns(stmt, setup_globals, number=200_000, repeat=7):
    times = timeit.repeat(stmt, globals=setup_globals, number=number, repeat=repeat)
    return min(times) / number * 1e9


def main():
    v5e = roofline.chip("tpu-v5e")
    mm = roofline.Matmul(m=4096, k=8192, n=32768)
    g = {"roofline": roofline, "predict": roofline.predict, "Matmul": roofline.Matmul, "v5e": v5e, "mm": mm}
    call = best_ns("predict(mm, v5e)", g)
    build = best_ns("predict(Matmul(m=4096, k=8192, n=32768), v5e)", g)
    empty = best_ns("pass", g)
    print(f"predict(mm, v5e)                                  {call:7.1f} ns/call")
    print(f"predict(Matmul(m=4096, k=8192, n=32768), v5e)     {build:7.1f} ns/call")
    print(f"(an empty timeit statement: {empty:.1f} ns)")


if __name__ == "__main__":
    main()
