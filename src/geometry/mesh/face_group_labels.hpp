#pragma once
// Labels a loaded mesh's triangles with the face groups of its file (files/mesh_face_groups.hpp). The
// repair (mesh_repair.hpp) merges, drops, re-orients and adds faces and CGAL cuts polygons into
// triangles, so no triangle keeps a link to the face it came from: each takes the group of the file's
// face nearest to its centroid (the distance to the face's triangles, a polygon cut into a fan round its
// first corner), ties to the face that comes first in the file. A triangle of a face as read lies on
// that face, at distance 0; one that closes a hole takes the group of the faces around it.
#include <vector>

#include <nodegen/spatial/point.hpp>

#include "geometry/files/mesh_face_groups.hpp"

namespace nodegen::geometry_detail {

// For each point (a triangle's centroid), the index of its group in groups.names, or -1 for a face of
// no group (or when the file's faces have no area at all).
std::vector<int> nearest_face_groups(const MeshFaceGroups& groups, const std::vector<Vec<3>>& points);

}  // namespace nodegen::geometry_detail
