"""Op statistics of many traces with Dask: one partial per file, merged in file order.

    python examples/python/dask_stats.py [--scheduler processes|threads] [--workers N] TRACE...

Each trace (one per host or rank) is reduced to its partial statistics in a
Dask task (roofline.stats_partial), the partials are merged as a tree whose
leaves are in file order, and the merged partial is finished into the
statistics: equal, to the bit, to roofline.stats([TRACE, ...]) in one
process (docs/partials.md, "Map-reduce"). Prints them as `roofline stats
TRACE... --format json` does. With a dask.distributed Client the same graph
runs on a cluster; partials travel pickled (as their JSON text).
"""

import argparse

import dask

import roofline


def merged_partial(traces, fan_in=2):
    """The delayed partial of all `traces`, in their order.

    Not dask.bag's fold or reduction: a Bag is an unordered collection
    (docs.dask.org, "Bag"), and merging partials is associative but not
    commutative (the order of files orders the source, the files, the
    warnings and breaks ties between equal totals). Here each merge task
    receives its parts as one list argument, consecutive slices of a list in
    file order, so whatever order the scheduler runs the tasks in, every
    merge sees its inputs in file order, and by associativity the tree
    equals one merge of all partials.
    """
    # jobs=1: the engine runs the files in parallel; one thread per task.
    level = [dask.delayed(roofline.stats_partial)(trace, jobs=1) for trace in traces]
    while len(level) > 1:
        level = [dask.delayed(roofline.merge_partials)(level[i:i + fan_in]) for i in range(0, len(level), fan_in)]
    return level[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="+", metavar="TRACE")
    parser.add_argument("--scheduler", choices=("processes", "threads", "synchronous"), default="processes")
    parser.add_argument("--workers", type=int, default=None, help="processes or threads (default: one per core)")
    args = parser.parse_args()
    partial = merged_partial(args.traces).compute(scheduler=args.scheduler, num_workers=args.workers)
    print(partial.stats().to_json(), end="")


if __name__ == "__main__":  # the processes scheduler starts workers that import this file
    main()
