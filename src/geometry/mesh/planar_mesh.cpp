// A planar triangle mesh as polygon rings (planar_mesh.hpp).
#include "geometry/mesh/planar_mesh.hpp"

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/IO/polygon_soup_io.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include <Eigen/Geometry>

#include "geometry/files/quiet_library_output.hpp"

namespace nodegen::geometry_detail {
namespace {

using Point3 = CGAL::Exact_predicates_inexact_constructions_kernel::Point_3;
using Vec3 = Eigen::Vector3d;

std::string text(const Vec3& p) {
  std::ostringstream out;
  out.precision(9);
  out << "(" << p[0] << ", " << p[1] << ", " << p[2] << ")";
  return out.str();
}

// The soup's points, one per position, and its faces by those.
struct Soup {
  std::vector<Vec3> points;
  std::vector<std::vector<std::uint32_t>> faces;
};

Soup read_soup(const std::string& file) {
  std::vector<Point3> read_points;
  std::vector<std::vector<std::size_t>> read_faces;
  bool read = false;
  try {
    const QuietLibraryOutput quiet;
    read = CGAL::IO::read_polygon_soup(file, read_points, read_faces);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot read mesh " + file + ": " + e.what());
  }
  if (!read || read_faces.empty()) throw std::runtime_error("cannot read mesh " + file + " (or it has no faces)");
  Soup soup;
  std::map<std::array<double, 3>, std::uint32_t> index;
  std::vector<std::uint32_t> merged(read_points.size());
  for (std::size_t i = 0; i < read_points.size(); ++i) {
    const Point3& p = read_points[i];
    const auto [it, fresh] = index.emplace(std::array<double, 3>{p.x(), p.y(), p.z()}, static_cast<std::uint32_t>(soup.points.size()));
    if (fresh) soup.points.push_back({p.x(), p.y(), p.z()});
    merged[i] = it->second;
  }
  for (const auto& face : read_faces) {
    std::vector<std::uint32_t> corners;
    for (std::size_t v : face) {
      if (v >= merged.size()) throw std::runtime_error("mesh " + file + " has a face that refers to a vertex it does not have");
      if (corners.empty() || corners.back() != merged[v]) corners.push_back(merged[v]);
    }
    if (corners.size() > 1 && corners.front() == corners.back()) corners.pop_back();
    if (corners.size() >= 3) soup.faces.push_back(std::move(corners));
  }
  return soup;
}

// The plane's 2D coordinates of every point, and what they are.
std::vector<Vec<2>> flatten(const std::string& file, const Soup& soup, std::string& plane) {
  // The faces' summed area vectors about the first point (Newell's), each turned to agree with the
  // first face's, so faces wound either way add up.
  const Vec3 o = soup.points.front();
  Vec3 lo = o, hi = o, area = Vec3::Zero(), first = Vec3::Zero();
  for (const Vec3& p : soup.points) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  for (const auto& f : soup.faces) {
    Vec3 face = Vec3::Zero();
    for (std::size_t k = 0; k < f.size(); ++k) face += (soup.points[f[k]] - o).cross(soup.points[f[(k + 1) % f.size()]] - o);
    if (first.isZero() && face.squaredNorm() > 0) first = face;
    area += face.dot(first) < 0 ? Vec3(-face) : face;
  }
  const double extent = (hi - lo).norm();
  // Off the plane by rounding only: a millionth of the extent, and what float coordinates (an STL's) round.
  const double tolerance = 1e-6 * extent + 1e-7 * std::max(lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff());
  if (!(area.norm() > 0) || !(extent > 0)) throw std::runtime_error("mesh " + file + " has no area");
  std::vector<Vec<2>> flat;
  flat.reserve(soup.points.size());
  if (lo[2] == hi[2]) {
    plane = level_plane_text(lo[2]);
    for (const Vec3& p : soup.points) flat.push_back({p[0], p[1]});
    return flat;
  }
  const Vec3 n = area.normalized();
  int least = 0;
  n.cwiseAbs().minCoeff(&least);
  const Vec3 u = n.cross(Vec3::Unit(least)).normalized(), v = n.cross(u);
  for (std::size_t i = 0; i < soup.points.size(); ++i) {
    const double off = (soup.points[i] - o).dot(n);
    if (std::abs(off) > tolerance)
      throw std::runtime_error("mesh " + file + " is not planar: its point " + text(soup.points[i]) + " lies " +
                               std::to_string(std::abs(off)) + " from the plane of its faces (a 2D domain needs one plane)");
    flat.push_back({(soup.points[i] - o).dot(u), (soup.points[i] - o).dot(v)});
  }
  plane = plane_text(o, n, u, v);
  return flat;
}

// The border edges' loops, as point indices.
std::vector<std::vector<std::uint32_t>> border_loops(const std::string& file, const Soup& soup) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> uses;
  for (const auto& f : soup.faces)
    for (std::size_t k = 0; k < f.size(); ++k) ++uses[std::minmax(f[k], f[(k + 1) % f.size()])];
  std::map<std::uint32_t, std::vector<std::uint32_t>> next;
  for (const auto& [edge, count] : uses) {
    if (count > 2)
      throw std::runtime_error("mesh " + file + " has an edge of " + std::to_string(count) + " faces at " +
                               text(soup.points[edge.first]) + ": a 2D domain's faces meet two at an edge");
    if (count == 1) next[edge.first].push_back(edge.second), next[edge.second].push_back(edge.first);
  }
  for (const auto& [v, around] : next)
    if (around.size() != 2)
      throw std::runtime_error("mesh " + file + " has border loops that touch at " + text(soup.points[v]) +
                               ": the rings of a 2D domain may not share a point");
  std::vector<std::vector<std::uint32_t>> loops;
  std::map<std::uint32_t, bool> seen;
  for (const auto& [start, around] : next) {
    if (seen[start]) continue;
    std::vector<std::uint32_t> loop{start};
    seen[start] = true;
    std::uint32_t before = start, at = std::min(around[0], around[1]);
    while (at != start) {
      loop.push_back(at);
      seen[at] = true;
      const auto& a = next[at];
      const std::uint32_t after = a[0] == before ? a[1] : a[0];
      before = at;
      at = after;
    }
    loops.push_back(std::move(loop));
  }
  return loops;
}

double area_of(const std::vector<Vec<2>>& ring) {
  double a = 0;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec<2>& p = ring[i];
    const Vec<2>& q = ring[(i + 1) % ring.size()];
    a += p[0] * q[1] - p[1] * q[0];
  }
  return 0.5 * a;
}

}  // namespace

std::string level_plane_text(double z) {
  std::ostringstream out;
  out.precision(17);
  out << "the plane z = " << z << ", coordinates x and y";
  return out.str();
}

std::string plane_text(const Vec<3>& origin, const Vec<3>& normal, const Vec<3>& u, const Vec<3>& v) {
  return "the plane through " + text(origin) + " with normal " + text(normal) + ", coordinates along " + text(u) +
         " and " + text(v);
}

PlanarMesh read_planar_mesh(const std::string& file) {
  const Soup soup = read_soup(file);
  PlanarMesh out;
  const std::vector<Vec<2>> flat = flatten(file, soup, out.plane);
  for (const auto& loop : border_loops(file, soup)) {
    std::vector<Vec<2>> ring;
    for (std::uint32_t v : loop) ring.push_back(flat[v]);
    out.rings.push_back(std::move(ring));
  }
  if (out.rings.empty()) throw std::runtime_error("mesh " + file + " has no border: a closed surface bounds no 2D region");
  std::stable_sort(out.rings.begin(), out.rings.end(), [](const auto& a, const auto& b) {
    return std::abs(area_of(a)) > std::abs(area_of(b));
  });
  return out;
}

}  // namespace nodegen::geometry_detail
