# HLO readers: shapes, HLO text (parsed, then costed and predicted) and HloProto.
roofline_add_fuzzer(hlo_shape_fuzz hlo_shape_fuzz.cc)
roofline_add_fuzzer(hlo_text_fuzz hlo_text_fuzz.cc)
roofline_add_fuzzer(hlo_proto_fuzz hlo_proto_fuzz.cc)
