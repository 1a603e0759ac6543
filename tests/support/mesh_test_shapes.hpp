#pragma once
// Triangle meshes the mesh suites build in memory: an indexed triangle list, the icosphere and the cube.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include <nodegen/spatial/point.hpp>

namespace nodegen::test {

struct TriMesh {
  std::vector<Vec<3>> v;
  std::vector<std::array<int, 3>> f;  // counter-clockwise seen from outside
};

// Icosahedron subdivided `levels` times, vertices projected onto the unit sphere.
inline TriMesh icosphere(int levels) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  TriMesh m;
  for (auto p : {Vec<3>(-1, t, 0), Vec<3>(1, t, 0), Vec<3>(-1, -t, 0), Vec<3>(1, -t, 0), Vec<3>(0, -1, t),
                 Vec<3>(0, 1, t), Vec<3>(0, -1, -t), Vec<3>(0, 1, -t), Vec<3>(t, 0, -1), Vec<3>(t, 0, 1),
                 Vec<3>(-t, 0, -1), Vec<3>(-t, 0, 1)})
    m.v.push_back(p.normalized());
  m.f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
         {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
         {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      m.v.push_back((m.v[a] + m.v[b]).normalized());
      return mid[key] = static_cast<int>(m.v.size()) - 1;
    };
    std::vector<std::array<int, 3>> next;
    for (auto [a, b, c] : m.f) {
      const int ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
      next.push_back({a, ab, ca});
      next.push_back({b, bc, ab});
      next.push_back({c, ca, bc});
      next.push_back({ab, bc, ca});
    }
    m.f = std::move(next);
  }
  return m;
}

// The cube [lo, hi], outward, two triangles a face; faces listed x-, x+, y-, y+, z-, z+.
inline TriMesh cube(const Vec<3>& lo, const Vec<3>& hi) {
  TriMesh s;
  for (int k = 0; k < 8; ++k) s.v.push_back(Vec<3>(k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]));
  const int quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : quads) {
    s.f.push_back({q[0], q[1], q[2]});
    s.f.push_back({q[0], q[2], q[3]});
  }
  return s;
}

}  // namespace nodegen::test
