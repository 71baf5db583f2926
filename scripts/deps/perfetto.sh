#!/usr/bin/env bash
# Perfetto's own protobuf definitions for the Perfetto export test
# (crates/perfetto/tests/python_decode.rs runs tests/perfetto_check.py, which
# decodes tracekit's output with the generated perfetto_trace_pb2 that the
# `perfetto` PyPI package ships). Idempotent: nothing happens when the pinned
# versions are already importable.
set -euo pipefail
PERFETTO_VERSION=0.59.1
PROTOBUF_VERSION=6.33.5
command -v python3 >/dev/null || { echo "perfetto.sh: python3 not found; the Perfetto decode test will be skipped" >&2; exit 0; }
if python3 - "$PERFETTO_VERSION" "$PROTOBUF_VERSION" <<'PY' 2>/dev/null; then exit 0; fi
import sys
from importlib.metadata import version
from perfetto.protos.perfetto.trace import perfetto_trace_pb2  # noqa: F401
sys.exit(0 if (version("perfetto"), version("protobuf")) == (sys.argv[1], sys.argv[2]) else 1)
PY
python3 -m pip install --quiet --disable-pip-version-check "perfetto==$PERFETTO_VERSION" "protobuf==$PROTOBUF_VERSION"
echo "perfetto.sh: installed perfetto $PERFETTO_VERSION, protobuf $PROTOBUF_VERSION" >&2
