# Trace readers under ASan+UBSan: any bytes as an XSpace, any bytes as a
# (possibly gzip'd) Chrome trace. Seeds in corpus/<name>/.
roofline_add_fuzzer(trace_xplane_fuzz trace_xplane_fuzz.cc)
roofline_add_fuzzer(trace_json_fuzz trace_json_fuzz.cc)
