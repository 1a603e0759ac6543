#!/usr/bin/env bash
# Builds nodegen and runs every test: the release suites, then the concurrency suites under
# ThreadSanitizer (tsan preset), each libFuzzer target for 15 seconds from its seed corpus (fuzz preset,
# scripts/fuzz.sh; NODEGEN_FUZZ_SECONDS=N for N, 0 to replay the corpus only), then the quick modes of
# the backend comparison and of bench/headline, so they cannot rot. Under AddressSanitizer + UBSan
# (asan preset, optimised): NODEGEN_ASAN=input runs the suites of the input readers and hostile input
# (ctest label "input", building only them), NODEGEN_ASAN=1 the whole suite. Neither runs by default:
# on CI's 2 cores the input suites alone take 12 minutes to build under ASan and 1 to run, beyond CI's
# 30 minutes next to the rest (the fuzz targets run the same readers under ASan + UBSan).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
# The public test models the bunny and cow examples read (from ../shared/meshes when it is there);
# without them, their tests skip.
bash domains/meshes/get_models.sh >/dev/null 2>&1 || echo "test.sh: the bunny and cow models are absent; their tests skip"

cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"

cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan

if [[ "${NODEGEN_ASAN:-0}" == 1 ]]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -j "$jobs"
elif [[ "${NODEGEN_ASAN:-0}" == input ]]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs" --target nodegen input_tests
  ctest --preset asan -j "$jobs" -L input
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
# 7 targets, 15 s each: under 2 minutes of CI's 30 (scripts/fuzz.sh's default, 30 s, is for a longer run).
bash scripts/fuzz.sh "${NODEGEN_FUZZ_SECONDS:-15}"

if [[ -x bench/end-to-end/compare ]]; then
  bench/end-to-end/compare --quick
fi

# The headline command in its quick size: it must complete and write every row of its CSV.
bench/headline --quick >/dev/null
bash scripts/check_headline_csv.sh output/headline/quick/headline.csv
echo "test.sh: all suites passed"
