# The match stage: each step on its own, the whole join on the small
# fixtures, and the real traces.
roofline_add_test(match_test
  match/match_test.cc
  match/op_model_test.cc
  match/cost_source_test.cc
  match/identify_test.cc
  match/group_test.cc
  match/real_traces_test.cc)
