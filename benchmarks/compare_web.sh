#!/usr/bin/env bash
# Compare the web load test of an older commit with this tree's, back to back (docs/performance.md: "compare
# as a ratio"). The older commit runs from a git worktree with its own copy of the virtualenv: the editable
# install of this tree maps `games`, `mastery` and `accounts` (and the engine's data namespace) to this
# tree's folders, so a worktree sharing the virtualenv would import some of this tree's modules.
#
# Usage: bash benchmarks/compare_web.sh <old commit> [rounds]     (rounds: 2)
# Each round runs benchmarks/web_load.sh on the old commit, then on this tree; the environment reaches both
# (PAGE_RATE, SUBMIT_RATE, DURATION, ONLY, WORKERS, BENCH_DB, PORT, ...). The logs go to the scratch folder,
# and the table of the server's CPU per request and p95 per scenario is printed at the end
# (benchmarks/web_compare.py).
# Needs what web_load.sh needs (PostgreSQL, Redis, wrk) and about 600 MB of disk for the copy.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${1:?usage: bash benchmarks/compare_web.sh <old commit> [rounds]}
ROUNDS=${2:-2}
# The scratch folder (BENCH_DIR, default a new temporary folder) holds the old tree, its virtualenv and
# the logs, never the working copy; BENCH_DB and PORT reach web_load.sh (issue 31).
OUT=${BENCH_DIR:-$(mktemp -d)}
TREE=$OUT/old-tree
VENV=$OUT/old-venv
mkdir -p "$OUT"
git worktree prune
git worktree add --detach --force "$TREE" "$OLD" > /dev/null
cleanup() { git worktree remove --force "$TREE" 2> /dev/null || true; git worktree prune; rm -rf "$VENV"; }
trap cleanup EXIT
cp -a .venv "$VENV"
rm -f "$VENV"/lib/python*/site-packages/__editable__*
# Console scripts and pyvenv.cfg name the copied-from virtualenv; point them at the copy.
grep -rlI --null "$PWD/.venv" "$VENV/bin" "$VENV/pyvenv.cfg" | xargs -0 -r sed -i "s|$PWD/.venv|$VENV|g"
ln -s "$VENV" "$TREE/.venv"
# Both sides are measured by this tree's load test and CPU accounting (the server's own processes).
cp benchmarks/web_load.sh benchmarks/cpu_share.py "$TREE/benchmarks/"
OLD_SHA=$(git -C "$TREE" rev-parse --short HEAD)
NEW_SHA=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo "+changes")
echo "== comparing $OLD_SHA (old) with $NEW_SHA (new), $ROUNDS rounds; logs in $OUT"
for round in $(seq "$ROUNDS"); do
  echo "== round $round: old"
  (cd "$TREE" && env -u BENCH_DIR bash benchmarks/web_load.sh) > "$OUT/old-$round.log" 2>&1
  echo "== round $round: new"
  env -u BENCH_DIR bash benchmarks/web_load.sh > "$OUT/new-$round.log" 2>&1
done
.venv/bin/python -m benchmarks.web_compare --old "$OUT"/old-*.log --new "$OUT"/new-*.log \
  --labels "$OLD_SHA" "$NEW_SHA"
