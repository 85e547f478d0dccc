# roofline hlo: per-instruction roofline of an HLO module.
list(APPEND ROOFLINE_CLI_SOURCES src/cli/cmd_hlo.cc)
