# Sourced by the path-profiling benchmarks (paths-real.sh, paths-decode.sh):
# the `tracekit paths instrument` options of each scheme they name.
# shellcheck shell=bash
flags() {
  case $1 in
    raw|blpp|pap) echo "--scheme $1" ;;
    adaptracer) echo "--scheme adaptracer --context none" ;;
    adaptracer-stream) echo "--scheme adaptracer --stream" ;;
    adaptracer-context) echo "" ;; # the default
  esac
}
