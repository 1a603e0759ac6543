#!/usr/bin/env bash
# Installs the build into a fresh prefix, then configures, builds and runs the example consumer
# (examples/cpp) against it alone: find_package(nodegen) must find the library, the one public header
# must compile with Eigen only, and the program must fill a domain and write its nodes.
#   consume_installed.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/nodegen-install-XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
headers=$(cd "$prefix/include" && find . -type f | sort)
if [[ "$headers" != "./nodegen/nodegen.hpp" ]]; then
  echo "the install holds headers besides nodegen/nodegen.hpp:"; echo "$headers"; exit 1
fi
[[ -x "$prefix/bin/nodegen" ]] || { echo "no bin/nodegen in the install"; exit 1; }

cmake -S "$source/examples/cpp" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/example" >/dev/null
out=$("$work/example/graded_plate" "$source/domains/square.json" "$work/plate.h5")
echo "$out"
grep -q "^nodes_sha256 [0-9a-f]\{64\}$" <<<"$out"
[[ -s "$work/plate.h5" && -s "$work/plate.xdmf" ]]
# The same nodes as the command's own file, read back by `nodegen stats`.
stats=$("$prefix/bin/nodegen" stats "$work/plate.h5")
grep -q "$(grep -o '[0-9a-f]\{64\}' <<<"$out")" <<<"$stats"
# A bad domain is the library's one-line error and exit 2.
set +e
"$work/example/graded_plate" "$source/README.md" 2>"$work/err"
status=$?
set -e
[[ $status -eq 2 ]] && grep -q "README.md" "$work/err"
# The Python module from the same prefix (when the build made it): the one PYTHONPATH line the README gives.
if [[ -d "$prefix/lib/python3/dist-packages/nodegen" ]]; then
  PYTHONPATH="$prefix/lib/python3/dist-packages" /usr/bin/python3 -c "
import sys, nodegen
d = nodegen.discretize(sys.argv[1], supports=5)
assert d.positions.shape == (len(d), 2) and d.supports.shape == (len(d), 5)
assert nodegen.__file__.startswith(sys.argv[2]), nodegen.__file__
print('python', d.nodes_sha256)" "$source/domains/square.json" "$prefix"
fi
echo "consume_installed: the installed library built and ran the example"
