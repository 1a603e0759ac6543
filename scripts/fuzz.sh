#!/usr/bin/env bash
# Runs each libFuzzer target (asan preset) for a fixed time on its seed corpus: the domain file loader,
# the four mesh readers and the HDF5 reader. Seeds: domains/*.json, the meshes of domains/meshes and
# small files of each format written here, and an output of `nodegen run` for the HDF5 reader.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]     (default 30; a finding fails it and is left in build/asan/findings;
#                                            0 replays the seed corpus once, as scripts/test.sh does)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
build=build/asan
corpus=$build/corpus
findings=$build/findings
# The targets' temporary paths (fuzz_domain_file resolves relative names against an empty folder there)
# stay inside the build folder, not in /tmp.
export TMPDIR="$PWD/$build/tmp"
mkdir -p "$corpus" "$findings" "$TMPDIR/nodegen-fuzz-empty"

seed() {  # seed TARGET FILE...
  mkdir -p "$corpus/$1"
  local target=$1
  shift
  cp "$@" "$corpus/$target/"
}
seed fuzz_domain_file domains/*.json bench/domains/*.json
seed fuzz_mesh_stl domains/meshes/*.stl
printf 'solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n' >"$corpus/fuzz_mesh_stl/ascii.stl"
tetra_v='0 0 0\n1 0 0\n0 1 0\n0 0 1\n'
mkdir -p "$corpus/fuzz_mesh_off" "$corpus/fuzz_mesh_obj" "$corpus/fuzz_mesh_ply" "$corpus/fuzz_hdf5_reader"
printf "OFF\n4 4 0\n${tetra_v}3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n" >"$corpus/fuzz_mesh_off/tetra.off"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n' >"$corpus/fuzz_mesh_obj/tetra.obj"
printf "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n${tetra_v}3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n" >"$corpus/fuzz_mesh_ply/tetra.ply"
# The repairing loader: the first byte picks the format (0 stl, 1 off, 2 ply, 3 obj; fuzz_mesh_reader.cpp),
# seeds of 4 KiB at most: the small seeds above, and meshes the repair mends (a hole, a flipped face, a
# duplicated face, two tetrahedra sharing a vertex).
mkdir -p "$corpus/fuzz_mesh_repair"
for pair in 0:fuzz_mesh_stl/ascii.stl 1:fuzz_mesh_off/tetra.off 2:fuzz_mesh_ply/tetra.ply 3:fuzz_mesh_obj/tetra.obj; do
  { printf "\\$(printf %03o "${pair%%:*}")"; cat "$corpus/${pair#*:}"; } >"$corpus/fuzz_mesh_repair/$(basename "${pair#*:}")"
done
printf "\\001OFF\n4 3 0\n${tetra_v}3 0 2 1\n3 0 1 3\n3 0 3 2\n" >"$corpus/fuzz_mesh_repair/hole.off"
printf "\\001OFF\n4 4 0\n${tetra_v}3 0 1 2\n3 0 1 3\n3 0 3 2\n3 1 2 3\n" >"$corpus/fuzz_mesh_repair/flipped.off"
printf "\\001OFF\n4 5 0\n${tetra_v}3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n3 1 2 3\n" >"$corpus/fuzz_mesh_repair/duplicate.off"
printf '\003v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv -1 0 0\nv 0 -1 0\nv 0 0 -1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 1 5 6\nf 1 6 7\nf 1 7 5\nf 5 7 6\n' >"$corpus/fuzz_mesh_repair/touching.obj"
if [[ -x build/release/nodegen ]]; then
  printf '{"dim": 2, "spacing": 0.25, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}}' >"$build/tiny.json"
  build/release/nodegen run "$build/tiny.json" -o "$corpus/fuzz_hdf5_reader/tiny.h5" --quiet --threads 1
  rm -f "$corpus/fuzz_hdf5_reader/tiny.xdmf"
fi

for target in fuzz_domain_file fuzz_mesh_stl fuzz_mesh_off fuzz_mesh_ply fuzz_mesh_obj fuzz_mesh_repair fuzz_hdf5_reader; do
  echo "fuzz.sh: $target for ${seconds} s"
  # -rss_limit_mb: memory beyond the input's size is a finding; -timeout: so is a slow input.
  # allocator_may_return_null: a request malloc cannot grant returns null, as glibc's does, instead of
  # ASan's abort. libhdf5 sizes metadata buffers by lengths in the file before checking them against
  # its end (a local heap claiming 1 TB); the release build then gets null and refuses the file, and
  # grants of up to gigabytes are never touched (tests/test_hostile_input.cpp, MetadataSized...).
  # Memory actually used still counts against -rss_limit_mb; for the HDF5 reader, a single malloc
  # above it does not (-malloc_limit_mb, by default the RSS limit), for that reason.
  # A fixed mutation seed (NODEGEN_FUZZ_SEED, default 1), so a run that finds something can be repeated.
  budget=(-max_total_time="$seconds" -seed="${NODEGEN_FUZZ_SEED:-1}"); [[ "$seconds" == 0 ]] && budget=(-runs=0)  # 0: replay the corpus once
  [[ "$target" == fuzz_hdf5_reader ]] && budget+=(-malloc_limit_mb=1048576)
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$build/fuzz/$target" "${budget[@]}" -timeout=20 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=0 -artifact_prefix="$findings/$target-" "$corpus/$target" \
    2>"$build/$target.log" || { tail -40 "$build/$target.log"; echo "fuzz.sh: $target found a failure (see $findings)"; exit 1; }
done
echo "fuzz.sh: no findings"
