"""How long roofline.jax.predict takes against jax's own compile of the same
step (issue 36's target: a ViT-S/16 step predicted in at most half the time
`jax.jit(f).lower(...).compile()` takes).

  PYTHONPATH=build/python .venv/bin/python bench/python/jax_predict_speed.py [--batch 1024] [--repeat 3]

The step is examples/python/vit_s16_step.py, data parallel over 8 virtual
CPU devices (jax 0.10.2 in .venv). Each repeat clears jax's caches and
times, in one process: jax's default compile (lower + compile), predict
(lower, the partitioned module from the worker process that stops after
XLA's partitioner (roofline/_jax_worker.py), costing it, XLA's cost
analyses beside), and lower + the in-process fast compile
(roofline.jax.FAST_COMPILE_OPTIONS), predict's fallback. Prints the best of the repeats and the ratio predict /
compile, in wall time and in CPU time (user + sys of this process and of the
worker: steadier than wall time on a shared machine; XLA's compile threads
count in it);
docs/python.md keeps the measured figures.
"""

import argparse
import os
import resource
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "examples", "python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scan", action="store_true", help="the blocks under lax.scan")
    args = parser.parse_args()

    import jax

    jax.config.update("jax_num_cpu_devices", 8)
    import roofline.jax as rj
    import vit_s16_step as vit

    params = vit.abstract_params(scan=args.scan)
    batch = vit.abstract_batch(args.batch)
    shardings = vit.shardings(params)
    mesh = rj._mesh_from(jax, {"data": 8})
    jitted = jax.jit(vit.train_step, in_shardings=rj._as_sharding(jax, mesh, shardings))

    def jax_compile():
        with jax.set_mesh(mesh):  # as predict lowers: the step's bare PartitionSpecs need it
            jitted.lower(params, batch).compile()

    def predict():
        rj.predict(vit.train_step, params, batch, chip="tpu-v5e", mesh=mesh, in_shardings=shardings)

    def fast_compile():
        with jax.set_mesh(mesh):
            jitted.lower(params, batch).compile(compiler_options=rj.FAST_COMPILE_OPTIONS)

    def cpu_s():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def cpu_children_s():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    wall, cpu = {}, {}
    for _ in range(args.repeat):
        for name, fn in (("jax compile (default)", jax_compile), ("roofline.jax.predict", predict),
                         ("lower + fast compile", fast_compile)):
            jax.clear_caches()
            start, start_cpu = time.perf_counter(), cpu_s() + cpu_children_s()
            fn()
            wall[name] = min(wall.get(name, float("inf")), time.perf_counter() - start)
            cpu[name] = min(cpu.get(name, float("inf")), cpu_s() + cpu_children_s() - start_cpu)
    print(f"ViT-S/16 step, batch {args.batch}, {'scan' if args.scan else 'unrolled'}, 8 CPU devices, "
          f"jax {jax.__version__}; best of {args.repeat} (wall s, CPU s):")
    for name in wall:
        print(f"  {name:24} {wall[name]:7.2f} {cpu[name]:7.2f}")
    p, c = "roofline.jax.predict", "jax compile (default)"
    print(f"  predict / jax compile    {wall[p] / wall[c]:7.2f} {cpu[p] / cpu[c]:7.2f}")


if __name__ == "__main__":
    main()
