# Parse throughput of the HLO text and HloProto readers, and module prediction.
roofline_add_bench(hlo_bench hlo_bench.cc)
