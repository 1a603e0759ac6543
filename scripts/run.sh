#!/usr/bin/env bash
# Builds nodegen (release) and runs the main job on the default domain, writing output/ files that
# ParaView opens. Extra arguments go to `nodegen run` (e.g. --threads 2 --backend vector).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target nodegen
build/release/nodegen run domains/square.json "$@"
