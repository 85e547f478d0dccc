list(APPEND ROOFLINE_CLI_SOURCES src/cli/cmd_stats.cc)
