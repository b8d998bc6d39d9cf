#!/usr/bin/env bash
# Web load test (issue 3 "Speed it must reach"): gunicorn + PostgreSQL on this machine, driven by wrk.
# Usage: bash benchmarks/web_load.sh   (needs PostgreSQL on 127.0.0.1:5432 and `wrk`; prints a summary)
# Environment: DURATION (15s), WORKERS (3 gunicorn sync workers), PAGE_RATE (150/s), SUBMIT_RATE (250/s),
# ONLY (run only the scenarios whose name contains it), GUNICORN_ARGS (extra gunicorn options).
# Pages: GET /games/<id>/ with a session cookie: 1 connection; 8 connections paced at PAGE_RATE; 8
# connections as fast as they go (saturated).
# Submits: POST /api/games/<id>/actions (end_turn, alternating seats, bearer tokens): 1 connection; 16
# connections paced at SUBMIT_RATE; 16 connections saturated. One 2-player game per connection, so every
# submit is legal and carries the right expected_seq.
# After each scenario, "CPU ms per request" splits the machine's CPU between gunicorn, PostgreSQL, Redis and
# the rest (wrk, the OS): benchmarks/cpu_share.py.
# "machine speed" is the seconds a fixed pure-Python loop takes before and after the run: this VM's speed
# varies up to 2x from one minute to the next, so figures are only comparable at similar speeds.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
# The database, port and scratch folder come from the environment (issue 31: runs beside other work):
# BENCH_DB (mastery_bench), PORT (a free one), BENCH_DIR (a new temporary folder, removed at the end).
DB=${BENCH_DB:-mastery_bench}
PORT=${PORT:-$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
DURATION=${DURATION:-15s}
WORKERS=${WORKERS:-3}
if [[ -n "${BENCH_DIR:-}" ]]; then OUT=$BENCH_DIR; KEEP=1; else OUT=$(mktemp -d); KEEP=0; fi
mkdir -p "$OUT"
export BENCH_DB=$DB
export DATABASE_URL="postgres://$(whoami)@127.0.0.1:5432/$DB" DEBUG=0 MASTERY_ENV=development LOG_LEVEL=ERROR
# As in production, a submit only enqueues its notification task on Redis (no worker runs here: sending is
# measured by benchmarks/email_latency.py); a dedicated Redis database is emptied before and after.
export REDIS_URL=${BENCH_REDIS_URL:-redis://127.0.0.1:6379/14}
flush_redis() { $PY -c "import redis, os; redis.Redis.from_url(os.environ['REDIS_URL']).flushdb()"; }
speed() { echo "== machine speed: $($PY -c 'import time; t = time.perf_counter(); sum(range(20_000_000)); print(f"{time.perf_counter() - t:.2f}")') s (python loop; lower is faster)"; }
speed
flush_redis
dropdb --if-exists -h 127.0.0.1 "$DB" && createdb -h 127.0.0.1 "$DB"
$PY manage.py migrate --noinput -v0
$PY -m benchmarks.web_setup 64 "$OUT/games.json"
$PY - "$OUT" <<'PYEOF'
import json, sys
out = sys.argv[1]
games = [g for g in json.load(open(f"{out}/games.json")) if g["players"] == 2]
lines = ["games = {"]
for g in games:
    lines.append('  {id=%d, seq=%d, active=%d, tok0="%s", tok1="%s"},' % (g["id"], g["seq"], g["active"], g["tokens"]["0"], g["tokens"]["1"]))
lines.append("}")
open(f"{out}/games.lua", "w").write("\n".join(lines) + "\n")
six = next(g for g in json.load(open(f"{out}/games.json")) if g["players"] == 6)
two = games[0]
open(f"{out}/page.env", "w").write(f"SEQ2={two['seq']}\nPAGE2=/games/{two['id']}/\nCOOKIE2=sessionid={two['session']}\nPAGE6=/games/{six['id']}/\nCOOKIE6=sessionid={six['session']}\n")
PYEOF
source "$OUT/page.env"
.venv/bin/gunicorn mastery.wsgi --bind "127.0.0.1:$PORT" --workers "$WORKERS" ${GUNICORN_ARGS:-} --log-level error &
GUNICORN=$!
export BENCH_SERVER_PID=$GUNICORN BENCH_DIR=$OUT  # cpu_share counts this server's processes; wrk's Lua reads the folder
trap 'kill $GUNICORN 2>/dev/null || true; flush_redis; speed; [[ $KEEP == 1 ]] || rm -rf "$OUT"' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
cat > "$OUT/pct.lua" <<'LUA'
function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d errors=%d rps=%.1f p50=%.2fms p95=%.2fms p99=%.2fms\n",
    summary.requests, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.timeout,
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000))
end
LUA
# Pacing (open loop): with `-- <rate> <connections>` after the script, each connection (one per wrk thread)
# sends at scheduled times, rate/connections per second, so latency is measured at that load, not at
# saturation. The clock is clock_gettime(CLOCK_MONOTONIC) through LuaJIT's ffi.
# Each connection starts at a random phase of its interval. Each wrk thread has its own Lua state, and
# LuaJIT starts every state's math.random from the same seed: unseeded, all connections drew the same phase
# and sent in bursts (16 submits at once every 64 ms). pace_init therefore seeds each thread from its index
# (setup()) and the clock.
cat > "$OUT/pace.lua" <<'LUA'
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } mm_timespec;
int clock_gettime(int clk_id, mm_timespec *tp);
]]
local ts = ffi.new("mm_timespec")
local function now_ms() ffi.C.clock_gettime(1, ts); return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6 end
local interval, next_at = nil, nil
local threads = 0
function setup(thread) threads = threads + 1; thread:set("idx", threads) end
function pace_init(rate, connections)
  ffi.C.clock_gettime(1, ts)
  math.randomseed(idx * 1000003 + tonumber(ts.tv_nsec))
  for _ = 1, 10 do math.random() end
  if rate and rate > 0 then interval = 1000 * connections / rate end
end
function delay()
  if interval == nil then return 0 end
  local now = now_ms()
  if next_at == nil then next_at = now + math.random() * interval end
  local wait = next_at - now
  next_at = next_at + interval
  if wait < 0 then return 0 end
  return wait
end
LUA
# Pages: `-- <rate> <connections>` (rate 0: as fast as possible).
{ cat "$OUT/pace.lua"; cat <<'LUA'
function init(args) pace_init(tonumber(args[1]), tonumber(args[2])) end
LUA
cat "$OUT/pct.lua"; } > "$OUT/page.lua"
# Submits: `-- <first game> <rate> <connections>`; connection i plays game first+i (a 2-player game, end_turn
# for alternating seats), so every submit is legal and carries the right expected_seq.
{ cat "$OUT/pace.lua"; cat <<'LUA'
dofile(os.getenv("BENCH_DIR") .. "/games.lua")
function init(args)
  local g = games[tonumber(args[1]) + idx]
  gid, seq, active, tok0, tok1 = g.id, g.seq, g.active, g.tok0, g.tok1
  pace_init(tonumber(args[2]), tonumber(args[3]))
end
function request()
  local tok = tok0
  if active == 1 then tok = tok1 end
  local body = '{"expected_seq": ' .. seq .. ', "action": {"type": "end_turn"}}'
  return wrk.format("POST", "/api/games/" .. gid .. "/actions",
    {["Authorization"] = "Bearer " .. tok, ["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  if status == 200 then seq = seq + 1; active = 1 - active end
end
LUA
cat "$OUT/pct.lua"; } > "$OUT/submit.lua"
PAGE_RATE=${PAGE_RATE:-150}
SUBMIT_RATE=${SUBMIT_RATE:-250}
echo "== warm-up"; wrk -t1 -c2 -d3s -H "Cookie: $COOKIE2" "http://127.0.0.1:$PORT$PAGE2" > /dev/null
# ONLY=<substring> runs just the matching scenarios (e.g. ONLY=submit).
run() {
  [[ -n "${ONLY:-}" && "$1" != *"$ONLY"* ]] && return 0
  echo "== $1"; shift
  $PY -m benchmarks.cpu_share snapshot "$OUT/cpu.json"
  wrk "$@" > "$OUT/scenario.log" || true
  cat "$OUT/scenario.log" >> "$OUT/wrk.log"
  grep -E "RESULT|Non-2xx" "$OUT/scenario.log" || true
  $PY -m benchmarks.cpu_share report "$OUT/cpu.json" "$(sed -n 's/^RESULT requests=\([0-9]*\).*/\1/p' "$OUT/scenario.log")"
}
U="http://127.0.0.1:$PORT"
run "game page, 2 players, 1 connection" -t1 -c1 -d"$DURATION" -s "$OUT/page.lua" -H "Cookie: $COOKIE2" "$U$PAGE2" -- 0 1
run "game page, 2 players, 8 connections at $PAGE_RATE/s" -t${PACE_THREADS:-8} -c8 -d"$DURATION" -s "$OUT/page.lua" -H "Cookie: $COOKIE2" "$U$PAGE2" -- "$PAGE_RATE" ${PACE_THREADS:-8}
run "game page, 6 players, 8 connections at $PAGE_RATE/s" -t${PACE_THREADS:-8} -c8 -d"$DURATION" -s "$OUT/page.lua" -H "Cookie: $COOKIE6" "$U$PAGE6" -- "$PAGE_RATE" ${PACE_THREADS:-8}
run "game page, 2 players, 8 connections, saturated" -t4 -c8 -d"$DURATION" -s "$OUT/page.lua" -H "Cookie: $COOKIE2" "$U$PAGE2" -- 0 8
run "game page, 6 players, 8 connections, saturated" -t4 -c8 -d"$DURATION" -s "$OUT/page.lua" -H "Cookie: $COOKIE6" "$U$PAGE6" -- 0 8
run "poll (unchanged), 8 connections, saturated" -t4 -c8 -d"$DURATION" -s "$OUT/page.lua" -H "Cookie: $COOKIE2" "$U${PAGE2}poll/?seq=$SEQ2" -- 0 8
run "action submit, 1 connection, 1 game" -t1 -c1 -d"$DURATION" -s "$OUT/submit.lua" "$U/" -- 0 0 1
run "action submit, 16 connections at $SUBMIT_RATE/s, 16 games" -t16 -c16 -d"$DURATION" -s "$OUT/submit.lua" "$U/" -- 1 "$SUBMIT_RATE" 16
run "action submit, 16 connections, 16 games, saturated" -t16 -c16 -d"$DURATION" -s "$OUT/submit.lua" "$U/" -- 17 0 16
