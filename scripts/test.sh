#!/usr/bin/env bash
# Builds nodegen and runs every test: the release suites, then the concurrency suites under
# ThreadSanitizer (tsan preset), then the benchmark routine's quick mode so it cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)

cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"

cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan

if [[ -x bench/end-to-end/compare ]]; then
  bench/end-to-end/compare --quick
fi
echo "test.sh: all suites passed"
