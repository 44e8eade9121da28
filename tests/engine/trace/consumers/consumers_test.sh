#!/usr/bin/env bash
# The trace-consumer test (ctest trace.Consumers*): every demo's export loads
# in independent consumers with no slice dropped and every arrow bound.
#   consumers_test.sh install WORK_DIR        npm ci of package.json here into WORK_DIR
#   consumers_test.sh check WORK_DIR EXE      export each demo with EXE, run check_trace.mjs
# Exits 77 (ctest's SKIP_RETURN_CODE) with the reason only when the npm
# registry cannot be reached (or no node/npm is installed); any other
# failure fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 work=$2
skip() { echo "SKIPPED: $*" >&2; exit 77; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  skip "node and npm are not installed (scripts/deps.sh installs them)"
fi

case "$mode" in
install)
  mkdir -p "$work"
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  # Installed already from this lock file: nothing to fetch.
  if [[ -f "$work/node_modules/.package-lock.json" ]] && cmp -s "$here/package-lock.json" "$work/.installed-lock.json"; then
    exit 0
  fi
  rm -f "$work/.installed-lock.json"
  if ! (cd "$work" && timeout 180 npm ci --no-audit --no-fund --loglevel=error); then
    if ! timeout 30 npm ping --loglevel=error >/dev/null 2>&1; then
      skip "the npm registry ($(npm config get registry 2>/dev/null)) cannot be reached to install the consumers"
    fi
    echo "npm ci failed although the registry answers" >&2
    exit 1
  fi
  cp "$here/package-lock.json" "$work/.installed-lock.json"
  ;;
check)
  exe=$3
  [[ -f "$work/.installed-lock.json" ]] || skip "the consumers are not installed (trace.ConsumersInstall was skipped)"
  traces="$work/traces"
  rm -rf "$traces"
  mkdir -p "$traces"
  # Small sizes: the point is the file's shape, not the workload.
  demos=(
    "queued-vs-finished --size 300"
    "sync-functions --size 200"
    "sync-vs-async --iterations 200 --size 64 --workers 1"
    "dependency-graph --size 300"
    "memory-and-sync --batches 5 --batch-size 64"
    "memory-and-sync --batches 5 --batch-size 64 --max-inflight 4"
    "host-vs-gpu --repeats 3 --size 200"
  )
  files=()
  for d in "${demos[@]}"; do
    read -r -a argv <<<"$d"
    file="$traces/$(echo "$d" | tr ' ' '_' | tr -d -- '-').json"
    "$exe" run "${argv[@]}" --trace "$file" >/dev/null
    files+=("$file")
  done
  # The demo list must cover every demo the CLI has.
  for name in $("$exe" list | grep -E '^[a-z]' | awk '{print $1}'); do
    printf '%s\n' "${demos[@]}" | grep -q "^$name " || { echo "demo $name is not checked here; add it" >&2; exit 1; }
  done
  cp "$here/check_trace.mjs" "$work/"
  node "$work/check_trace.mjs" "${files[@]}"
  ;;
*)
  echo "usage: $0 install|check WORK_DIR [EXE]" >&2
  exit 2
  ;;
esac
