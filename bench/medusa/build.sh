#!/usr/bin/env bash
# Builds bench/medusa/generalfill_nodes and load_nodes against a Medusa checkout
# (https://gitlab.com/e62Lab/medusa or a mirror): generalfill_nodes uses only Medusa's headers
# (GeneralFill, BoxShape and DomainDiscretization are templates); load_nodes compiles Medusa's HDF
# reader (src/io/HDF.cpp, src/utils/assert.cpp) with it. Medusa is not a dependency of nodegen.
#   bench/medusa/build.sh MEDUSA_DIR [OUT_DIR]      -> OUT_DIR/{generalfill_nodes,load_nodes} (default build/medusa)
set -euo pipefail
medusa=${1:?usage: bench/medusa/build.sh MEDUSA_DIR [OUT_DIR]}
out=${2:-build/medusa}
here=$(cd "$(dirname "$0")" && pwd)
[[ -f $medusa/include/medusa/bits/domains/GeneralFill.hpp ]] || { echo "build.sh: $medusa is not a Medusa checkout" >&2; exit 2; }
mkdir -p "$out"
# Medusa's headers ship their own Eigen under include/; it comes first so Medusa sees the Eigen it expects.
g++ -std=c++17 -O3 -DNDEBUG -w -isystem "$medusa/include" -I/usr/include/hdf5/serial \
  "$here/generalfill_nodes.cpp" -o "$out/generalfill_nodes" -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5
g++ -std=c++17 -O2 -w -isystem "$medusa/include" -I/usr/include/hdf5/serial "$here/load_nodes.cpp" \
  "$medusa/src/io/HDF.cpp" "$medusa/src/utils/assert.cpp" -o "$out/load_nodes" -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5
echo "$out/generalfill_nodes $out/load_nodes"
