#!/usr/bin/env bash
# Installs every Debian package nodegen needs to build, test and benchmark. Idempotent: packages
# already present are skipped, so CI and developers can call it every time.
#   scripts/install-deps.sh            build + test + bench dependencies
#   scripts/install-deps.sh --paraview also ParaView and a virtual display, for the rendering script
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libeigen3-dev libhdf5-dev hdf5-tools
  openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
  libcgal-dev libgmp-dev libmpfr-dev libboost-dev
  libcli11-dev nlohmann-json3-dev libmuparser-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libtbb-dev libnanoflann-dev libssl-dev
  clang libfuzzer-14-dev libomp-dev
  python3-matplotlib python3-h5py python3-numpy
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-scipy
  libocct-data-exchange-dev libocct-modeling-algorithms-dev libocct-modeling-data-dev libocct-foundation-dev
)
if [[ "${1:-}" == "--paraview" ]]; then
  packages+=(paraview python3-paraview xvfb xauth)   # pvbatch needs python3-paraview for its "paraview" module
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
