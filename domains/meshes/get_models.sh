#!/bin/bash
# Puts the two public test models that domains/bunny_mesh.json and domains/cow_mesh.json read into
# domains/meshes/. They are not part of the repository: neither file states a licence that allows
# redistributing it here (the Stanford bunny: Stanford 3D Scanning Repository, Turk & Levoy 1994; the
# cow: Viewpoint Animation Engineering / Sun Microsystems, DeCarlo et al. 2003; both as OBJ in the
# common-3d-test-models collection, https://github.com/alecjacobson/common-3d-test-models, data/).
#   domains/meshes/get_models.sh [FOLDER]   # copies FOLDER/{stanford-bunny,cow}.obj (default: ../shared/meshes
#                                           # beside the repository), else downloads them from the collection
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
from=${1:-$here/../../../shared/meshes}
for model in stanford-bunny cow; do
  if [ -f "$from/$model.obj" ]; then
    cp "$from/$model.obj" "$here/$model.obj"
  else
    curl -fsSL -o "$here/$model.obj" "https://raw.githubusercontent.com/alecjacobson/common-3d-test-models/master/data/$model.obj"
  fi
  echo "domains/meshes/$model.obj"
done
