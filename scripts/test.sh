#!/usr/bin/env bash
# Builds nodegen and runs every test: the release suites; the concurrency suites under ThreadSanitizer
# (tsan preset); the suites again under AddressSanitizer + UBSan (asan preset: clang, optimised, one
# build for both; cases whose point is their size run smaller there, tests/support/sanitized_build.hpp,
# four concurrency suites whose code the others run there, the rendering suite and the CLI's MPI suite
# (built without MPI there) are left out,
# tests/CMakeLists.txt, and so are the cases whose point is the same nodes at many thread counts, a
# solver's convergence order, a progress line's timing or a bound on a hostile input's time or memory,
# the asan test preset's filter: they read nothing the other cases do not, and took half the stage) and each libFuzzer target for 4 seconds from its seed corpus (scripts/fuzz.sh;
# NODEGEN_FUZZ_SECONDS=N for N, 0 to replay the corpus only); then the quick modes of the backend
# comparison and of bench/headline, so they cannot rot.
# Each stage prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
# The public test models the bunny and cow examples read (from ../shared/meshes when it is there);
# without them, their tests skip.
bash domains/meshes/get_models.sh >/dev/null 2>&1 || echo "test.sh: the bunny and cow models are absent; their tests skip"

# The size rules (files of at most 700 lines, functions of at most 100) over src/, include/, tests/,
# bench/ and fuzz/: before any build, so a breach fails in a second.
python3 scripts/check_code_shape.py

stage_start=$SECONDS
stage() {  # stage NAME: the wall time since the previous stage
  echo "test.sh: $1 took $((SECONDS - stage_start)) s"
  stage_start=$SECONDS
}

cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
stage "release build"
ctest --preset release -j "$jobs"
stage "release suites"

cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
stage "tsan build"
# Two suites at once, as the release ones run: each stress test already runs more threads than cores,
# so a second beside it only adds to the preemption it is there for (192 s serially, 101 s so).
ctest --preset tsan -j "$jobs"
stage "tsan suites"

cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
stage "asan build"
ctest --preset asan -j "$jobs"
stage "asan suites"
# 7 targets, 4 s each after replaying their corpus: about 40 s of CI's 30 minutes (scripts/fuzz.sh's
# default, 30 s, is for a longer run).
bash scripts/fuzz.sh "${NODEGEN_FUZZ_SECONDS:-4}"
stage "fuzzing"

if [[ -x bench/end-to-end/compare ]]; then
  bench/end-to-end/compare --quick
fi

# The headline command in its quick size: it must complete and write every row of its CSV.
bench/headline --quick >/dev/null
bash scripts/check_headline_csv.sh output/headline/quick/headline.csv
stage "quick benchmarks"
echo "test.sh: all suites passed"
