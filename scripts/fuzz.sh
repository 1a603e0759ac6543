#!/usr/bin/env bash
# Runs each libFuzzer target (asan preset) for a fixed time on its seed corpus: the domain file loader,
# the four mesh readers and the HDF5 reader. Seeds: domains/*.json, the meshes of domains/meshes and
# small files of each format written here, and an output of `nodegen run` for the HDF5 reader.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]     (default 30; a finding fails it and is left in build/asan/findings;
#                                            0 replays the seed corpus once)
# A crash inside libhdf5 that `nodegen stats` turns into its one-line error is listed and kept in
# build/asan/findings/contained, not failed (contained() below).
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
# What a hand-written file rarely holds: a NUL byte in the middle of valid JSON (raw, and escaped in a
# part name and in file names), and string values of 60 000 characters (a comment, a name, an
# expression, a file name: long, yet whole under -max_len below, which cuts a longer seed).
box='"shape": {"type": "box", "min": [0, 0], "max": [1, 1]}'
long=$(printf '%60000s' '' | tr ' ' q)
printf '{"dim": 2, "spacing": 0.1,\0 %s}' "$box" >"$corpus/fuzz_domain_file/nul_raw.json"
printf '{"dim": 2, "spacing": 0.1, "shape": {"type": "box", "name": "a\\u0000b", "min": [0, 0], "max": [1, 1]}, "parts": [{"name": "in", "of": "a\\u0000b:x-"}]}' \
  >"$corpus/fuzz_domain_file/nul_name.json"
printf '{"dim": 2, "spacing": 0.1, "shape": {"type": "polygon", "points": "p.txt\\u0000x"}}' >"$corpus/fuzz_domain_file/nul_points.json"
printf '{"dim": 3, "spacing": 0.1, "shape": {"type": "mesh", "file": "m.stl\\u0000.stl"}}' >"$corpus/fuzz_domain_file/nul_mesh.json"
printf '{"dim": 2, "comment": "%s", "spacing": 0.1, %s}' "$long" "$box" >"$corpus/fuzz_domain_file/long_comment.json"
printf '{"dim": 2, "spacing": 0.1, "shape": {"type": "box", "name": "%s", "min": [0, 0], "max": [1, 1]}}' "$long" \
  >"$corpus/fuzz_domain_file/long_name.json"
printf '{"dim": 2, "spacing": "0.1+%s", %s}' "$long" "$box" >"$corpus/fuzz_domain_file/long_expression.json"
printf '{"dim": 2, "spacing": 0.1, "shape": {"type": "polygon", "points": "%s"}}' "$long" >"$corpus/fuzz_domain_file/long_file_name.json"
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

# A crash of fuzz_hdf5_reader is contained when it happens inside libhdf5 (the report's innermost frame
# outside the C library and ASan's interceptors is an H5 function, and no frame of nodegen comes before
# it) and `nodegen stats` on the file ends as promised: exit 2 and one line `nodegen: error: ...`.
contained() {
  local report first out status
  report=$(ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$build/fuzz/fuzz_hdf5_reader" -malloc_limit_mb=1048576 "$1" 2>&1 || true)
  first=$(grep -E '^ +#[0-9]+ ' <<<"$report" | grep -vE ' in (__interceptor_|__asan|__sanitizer|__memcpy|__memmove|__memset|memcpy|memmove|memset|__libc|__GI_)' |
          head -1 | sed -E 's/.* in ([^ (]+).*/\1/')
  [[ "$first" == H5* ]] || return 1
  status=0; out=$(build/release/nodegen stats "$1" 2>&1 >/dev/null) || status=$?
  [[ $status == 2 && $(wc -l <<<"$out") == 1 && "$out" == "nodegen: error: "* ]]
}

# A finding of memory or time (oom-, timeout-) fails the run when it reproduces alone: replayed 300 times
# (over a second, so libFuzzer's RSS check, once a second, sees its peak). In fork mode a job runs
# thousands of inputs in one process, and one ran out of memory on an input that alone peaks at 60 MB.
# Those that do not reproduce are listed and kept in build/asan/findings/unreproduced.
reproduces() {  # reproduces TARGET FILE LIMITS...
  local target=$1 file=$2
  shift 2
  ! ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$build/fuzz/$target" "$@" -runs=300 "$file" >/dev/null 2>&1
}

for target in fuzz_domain_file fuzz_mesh_stl fuzz_mesh_off fuzz_mesh_ply fuzz_mesh_obj fuzz_mesh_repair fuzz_hdf5_reader; do
  echo "fuzz.sh: $target for ${seconds} s"
  # -rss_limit_mb: memory beyond the input's size is a finding; -timeout: so is a slow input.
  # allocator_may_return_null: a request malloc cannot grant returns null, as glibc's does, instead of
  # ASan's abort. libhdf5 sizes metadata buffers by lengths in the file before checking them against
  # its end (a local heap claiming 1 TB); the release build then gets null and refuses the file, and
  # grants of up to gigabytes are never touched (tests/hostile/test_hostile_hdf5.cpp, MetadataSized...).
  # Memory actually used still counts against -rss_limit_mb; for the HDF5 reader, a single malloc
  # above it does not (-malloc_limit_mb, by default the RSS limit), for that reason.
  limits=(-timeout=20 -rss_limit_mb=2048)
  [[ "$target" == fuzz_hdf5_reader ]] && limits+=(-malloc_limit_mb=1048576)
  # A fixed mutation seed (NODEGEN_FUZZ_SEED, default 1), so a run that finds something can be repeated.
  budget=(-max_total_time="$seconds" -seed="${NODEGEN_FUZZ_SEED:-1}"); [[ "$seconds" == 0 ]] && budget=(-runs=0)  # 0: replay the corpus once
  # The HDF5 reader runs libhdf5 in this process, which crashes on some corrupt metadata (a local heap
  # at an address the file does not have) before nodegen could check it through the API; `nodegen
  # stats` reads in a child process and reports such a crash as the file's error. So this target runs
  # on after a crash (libFuzzer's fork mode) and each crash is judged after the run (contained below).
  forked=0
  [[ "$target" == fuzz_hdf5_reader && "$seconds" != 0 ]] && { budget+=(-fork=1 -ignore_crashes=1); forked=1; }
  status=0
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$build/fuzz/$target" "${budget[@]}" "${limits[@]}" \
    -max_len=65536 -print_final_stats=0 -artifact_prefix="$findings/$target-" "$corpus/$target" \
    2>"$build/$target.log" || status=$?
  # In fork mode libFuzzer exits with the status of its last job, a crash it was told to ignore
  # included: there the findings below decide, once it has ended its run itself.
  if (( status != 0 )) && { ! (( forked )) || ! grep -q '^INFO: exiting: ' "$build/$target.log"; }; then
    grep -v NEW_FUNC "$build/$target.log" | tail -40; echo "fuzz.sh: $target found a failure (see $findings)"; exit 1
  fi
  for found in "$findings/$target-"*; do
    [[ -e "$found" ]] || continue
    kind=$(basename "$found"); kind=${kind#"$target-"}; kind=${kind%%-*}
    if [[ "$target" == fuzz_hdf5_reader && "$kind" == crash ]] && contained "$found"; then
      mkdir -p "$findings/contained" && mv "$found" "$findings/contained/"
      echo "fuzz.sh: $(basename "$found"): a crash inside libhdf5, which nodegen stats reports as the file's error"
      continue
    fi
    if [[ "$kind" == oom || "$kind" == timeout ]] && ! reproduces "$target" "$found" "${limits[@]}"; then
      mkdir -p "$findings/unreproduced" && mv "$found" "$findings/unreproduced/"
      echo "fuzz.sh: $(basename "$found"): $kind in a job of many inputs, not reproduced by this input alone"
      continue
    fi
    grep -v NEW_FUNC "$build/$target.log" | tail -40; echo "fuzz.sh: $target found a failure: $found"; exit 1
  done
done
echo "fuzz.sh: no findings"
