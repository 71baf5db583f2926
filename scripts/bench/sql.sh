#!/usr/bin/env bash
# Issue 13's measurements, side by side in one run (medians of RUNS runs;
# wall time and peak RSS of whole commands, /usr/bin/time):
# 1. a CALLS-call method trace (4 threads, dual clock, 2,000 methods):
#    `tracekit sql` loading it and running a per-method group-by, against
#    loading alone; memory per call = (peak RSS - peak RSS on a 4-call
#    trace) / CALLS; Parquet bytes per call after `tracekit export`;
# 2. the same group-by on the Parquet dataset: tracekit sql (DataFusion)
#    against DuckDB (PyPI duckdb) on the very same files;
# 3. Spark local mode (local[2]): spark/fleet hints over 10, 100 and 1,000
#    generated sessions (SESSIONS="10 100 1000"), and spark/fleet profile.
#   CALLS=10000000 RUNS=5 SESSIONS="10 100 1000" scripts/bench/sql.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
CALLS=${CALLS:-10000000}
RUNS=${RUNS:-5}
SESSIONS=${SESSIONS:-"10 100 1000"}
PARTS=${PARTS:-"calls duckdb spark"}
work=target/bench-sql
mkdir -p "$work"
cargo build --release --locked -q -p tracekit --features sql
# The generator is built only when a trace is missing: building it alone
# unifies features differently and rebuilds DataFusion (half an hour here).
gen() { [ -s "$2" ] || { cargo build --release --locked -q -p tracekit-sql --example gen_calls && target/release/examples/gen_calls "$1" "$2"; }; }
tk=target/release/tracekit
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# measure LABEL CMD...: RUNS runs; prints median wall s and median peak RSS MB.
measure() {
  local label=$1; shift
  local walls=() rss=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null
    read -r w m <"$work/time.txt"
    walls+=("$w"); rss+=("$m")
  done
  local mw mr
  mw=$(printf '%s\n' "${walls[@]}" | median)
  mr=$(printf '%s\n' "${rss[@]}" | median)
  printf '%-58s wall %7.3f s   peak RSS %8.1f MB   (runs: %s)\n' "$label" "$mw" "$(echo "$mr/1024" | bc -l)" "${walls[*]}"
  echo "$mw $mr" >"$work/last.txt"
}
group_by="SELECT method, count(*) AS calls, sum(dur) AS incl_ns, sum(self_dur) AS excl_ns FROM call GROUP BY method"

if [[ " $PARTS " == *" calls "* || " $PARTS " == *" duckdb "* ]]; then
  big=$work/calls-$CALLS.trace
  gen "$CALLS" "$big"
  small=$work/calls-4.trace
  gen 4 "$small"
  echo "== $CALLS calls: $(du -h "$big" | cut -f1) trace; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  measure "tracekit sql: 4-call trace, SELECT 1 (baseline)" "$tk" sql "$small" -q "SELECT 1"
  read -r _ base_kb <"$work/last.txt"
  measure "tracekit sql: load only (SELECT 1)" "$tk" sql "$big" -q "SELECT 1"
  measure "tracekit sql: load + per-method group-by" "$tk" sql "$big" -q "$group_by"
  read -r _ peak_kb <"$work/last.txt"
  echo "memory per call: $(echo "($peak_kb - $base_kb) * 1024 / $CALLS" | bc -l | xargs printf '%.1f') B (peak RSS above the baseline / calls)"
  ds=$work/ds-$CALLS
  rm -rf "$ds"
  measure "tracekit export --parquet (1 session)" bash -c "rm -rf '$ds' && '$tk' export --quiet --parquet '$ds' '$big'"
  bytes=$(du -sb "$ds/call" | cut -f1)
  echo "Parquet: $bytes bytes in call/ = $(echo "$bytes / $CALLS" | bc -l | xargs printf '%.2f') B per call (all tables: $(du -sb "$ds" | cut -f1) B)"
  measure "tracekit sql on the dataset: per-method group-by" "$tk" sql "$ds" -q "$group_by"
  read -r ours _ <"$work/last.txt"
  if [[ " $PARTS " == *" duckdb "* ]]; then
    cat >"$work/duck.py" <<PY
import duckdb, sys
con = duckdb.connect()
con.sql("CREATE VIEW call AS SELECT * FROM read_parquet('$ds/call/*/*.parquet', hive_partitioning = true)")
con.sql("""$group_by""").fetchall()
PY
    measure "DuckDB on the dataset: per-method group-by" python3 "$work/duck.py"
    read -r duck _ <"$work/last.txt"
    cat >"$work/duck0.py" <<PY
import duckdb
duckdb.connect().sql("SELECT 1").fetchall()
PY
    measure "DuckDB: python3 + import duckdb + SELECT 1 (its start-up)" python3 "$work/duck0.py"
    echo "tracekit/DuckDB wall-time ratio on the dataset: $(echo "$ours / $duck" | bc -l | xargs printf '%.2f')"
  fi
fi

if [[ " $PARTS " == *" spark "* ]]; then
  for n in $SESSIONS; do
    dir=$work/fleet-$n
    if [ ! -s "$dir/ds/tracekit-dataset.json" ]; then
      mkdir -p "$dir"; rm -rf "$dir/ds"
      for i in $(seq "$n"); do
        [ -s "$dir/u$i/browser.trace" ] || "$tk" example --quiet -o "$dir/u$i" --seed "$i" --duration-s 20 >/dev/null
      done
      inputs=(); for i in $(seq "$n"); do inputs+=("$dir/u$i/browser"); done
      "$tk" export --quiet --parquet "$dir/ds" "${inputs[@]}" >/dev/null
    fi
    echo "== $n sessions: $(du -sh "$dir/ds" | cut -f1) dataset; load average $(cut -d' ' -f1-3 /proc/loadavg)"
    RUNS_SAVED=$RUNS; RUNS=${SPARK_RUNS:-3}
    measure "spark/fleet hints, local[2], $n sessions" spark/fleet hints "$dir/ds" --master 'local[2]' --json
    measure "spark/fleet profile, local[2], $n sessions" spark/fleet profile "$dir/ds" --master 'local[2]' --json
    measure "tracekit sql (DataFusion), fleet_method_profile, $n sessions" "$tk" sql "$dir/ds" -q "SELECT * FROM fleet_method_profile"
    RUNS=$RUNS_SAVED
  done
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
