roofline_add_fuzzer(report_fuzz report_fuzz.cc)
