#!/usr/bin/env bash
# Lists functions in src/ and include/ longer than a limit (default 80
# lines), longest first, using Universal Ctags' end lines. The house rule:
# no function over about 80 lines without a comment above it saying why.
#
#   scripts/long_functions.sh [LIMIT] [PATH...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
limit=${1:-80}
shift || true
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=("$root/src" "$root/include")
ctags -R --languages=C++ --kinds-C++=f --fields=+ne -o - "${paths[@]}" 2>/dev/null |
  awk -F'\t' -v limit="$limit" '{
    line = 0; end = 0
    for (i = 4; i <= NF; i++) {
      if ($i ~ /^line:/) line = substr($i, 6)
      if ($i ~ /^end:/) end = substr($i, 5)
    }
    if (end > 0 && end - line + 1 > limit) printf "%5d  %s:%d  %s\n", end - line + 1, $2, line, $1
  }' | sort -rn | sed "s#$root/##"
