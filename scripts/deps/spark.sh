#!/usr/bin/env bash
# Apache Spark for the fleet jobs (spark/) and DuckDB as the anchor of the
# SQL benchmarks (issue 13), from PyPI into the machine's Python. PySpark
# runs Spark in local mode on the installed JDK 17 (scripts/deps/jvm.apt);
# no cluster is needed for the tests (local[2]). Pinned versions;
# idempotent: does nothing when both import.
set -euo pipefail
py=${PYTHON:-python3}
want_spark=4.0.1
want_duckdb=2.0.1
have() { "$py" -c "import $1, sys; sys.exit(0 if $1.__version__ == '$2' else 1)" 2>/dev/null; }
missing=()
have pyspark "$want_spark" || missing+=("pyspark==$want_spark")
have duckdb "$want_duckdb" || missing+=("duckdb==$want_duckdb")
[ ${#missing[@]} -eq 0 ] && exit 0
echo "spark.sh: installing ${missing[*]} from PyPI" >&2
"$py" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
