#!/usr/bin/env bash
# Checks the commit messages since the commit the rule started from: a
# subject of at most 72 characters, then a blank line before any body, so
# `git log --oneline` can be read. Older history is left as it was.
#
#   scripts/check_commits.sh [BASE]     (default: the rule's first commit)
#
# Exit status 0 when every commit keeps the rule; 1 with one line per
# commit that breaks it. Without git history (an archive, a shallow clone
# that lacks BASE) it says so and exits 0: there is nothing to check.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base=${1:-b6620138c7e6cfd0b2342ed2aa271b5311ce978e}
if ! git -C "$root" rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1; then
  echo "check_commits: $base is not in this checkout's history: nothing to check"
  exit 0
fi
bad=0
while IFS= read -r rev; do
  subject=$(git -C "$root" log -1 --format=%s "$rev")
  second=$(git -C "$root" log -1 --format=%B "$rev" | sed -n 2p)
  short=$(git -C "$root" rev-parse --short "$rev")
  if [ ${#subject} -gt 72 ]; then
    echo "$short: subject of ${#subject} characters (at most 72): ${subject:0:60}..."
    bad=1
  fi
  if [ -n "$second" ]; then
    echo "$short: no blank line after the subject"
    bad=1
  fi
done < <(git -C "$root" rev-list --no-merges "$base..HEAD")
[ $bad = 0 ] && echo "check_commits: every commit since ${base:0:7} keeps the subject rule"
exit $bad
