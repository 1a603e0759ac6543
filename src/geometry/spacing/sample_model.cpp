// The spacing of sampled values (spacing_samples.hpp): a Delaunay triangulation of the samples, linear
// interpolation inside their hull, inverse-distance weights of the nearest samples outside it.
#include <CGAL/Delaunay_triangulation_2.h>
#include <CGAL/Delaunay_triangulation_3.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Triangulation_face_base_with_info_2.h>
#include <CGAL/Triangulation_vertex_base_with_info_2.h>
#include <CGAL/Triangulation_vertex_base_with_info_3.h>

#include <Eigen/Geometry>
#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <type_traits>
#include <stdexcept>

#include "geometry/spacing/flat_triangulation.hpp"
#include "geometry/spacing/sample_neighbours.hpp"
#include "geometry/spacing/spacing_model.hpp"
#include "geometry/spacing/start_grid.hpp"
#include "nodegen/geometry/spacing_samples.hpp"

namespace nodegen {
namespace {

using K = CGAL::Exact_predicates_inexact_constructions_kernel;
struct Info {
  double value = 0.0;
  std::uint32_t index = 0;  // the sample's place after deduplication: the order edges and faces interpolate in
};
using Dt2 = CGAL::Delaunay_triangulation_2<
    K, CGAL::Triangulation_data_structure_2<CGAL::Triangulation_vertex_base_with_info_2<Info, K>,
                                            CGAL::Triangulation_face_base_with_info_2<std::int32_t, K>>>;
using Dt3 = CGAL::Delaunay_triangulation_3<
    K, CGAL::Triangulation_data_structure_3<CGAL::Triangulation_vertex_base_with_info_3<Info, K>>>;

// The samples in a canonical order: sorted by position, one per position (the least value).
struct Samples {
  int dim = 2;
  std::vector<Eigen::Vector3d> points;
  std::vector<double> values;
};

Samples canonical(int dim, const std::vector<double>& positions, const std::vector<double>& values,
                  const SampleSpacingOptions& options) {
  const std::size_t n = values.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  auto at = [&](std::uint32_t i, int k) { return k < dim ? positions[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(k)] : 0.0; };
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (int k = 0; k < 3; ++k)
      if (at(a, k) != at(b, k)) return at(a, k) < at(b, k);
    return values[a] < values[b];
  });
  Samples s;
  s.dim = dim;
  for (std::uint32_t i : order) {
    const Eigen::Vector3d p(at(i, 0), at(i, 1), at(i, 2));
    if (!s.points.empty() && s.points.back() == p) continue;  // the least value of a position came first
    s.points.push_back(p);
    s.values.push_back(std::clamp(options.scale * values[i], options.min, options.max));
  }
  return s;
}

// Barycentric interpolation of a simplex's values at p, its corners in the order given.
double on_segment(const Eigen::Vector3d& p, const Eigen::Vector3d& a, double va, const Eigen::Vector3d& b, double vb) {
  const Eigen::Vector3d ab = b - a;
  const double len2 = ab.squaredNorm();
  const double t = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return va + t * (vb - va);
}
// The weights are ratios of signed areas (cross products), accurate however thin the triangle: the
// Gram determinant's form (d00 d11 - d01^2) lost digits as the square of its aspect ratio, and a
// triangle of three consecutive nodes on a curved boundary is thin.
double on_triangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a, double va, const Eigen::Vector3d& b, double vb,
                   const Eigen::Vector3d& c, double vc) {
  const Eigen::Vector3d n = (b - a).cross(c - a);
  const double den = n.squaredNorm();
  if (!(den > 0)) return std::min({va, vb, vc});
  const double wb = n.dot((p - a).cross(c - a)) / den, wc = n.dot((b - a).cross(p - a)) / den;
  return (1.0 - wb - wc) * va + wb * vb + wc * vc;
}
double in_tetrahedron(const Eigen::Vector3d& p, const std::array<Eigen::Vector3d, 4>& v, const std::array<double, 4>& h) {
  Eigen::Matrix3d m;
  m.col(0) = v[1] - v[0];
  m.col(1) = v[2] - v[0];
  m.col(2) = v[3] - v[0];
  const Eigen::Vector3d w = m.partialPivLu().solve(p - v[0]);
  return (1.0 - w.sum()) * h[0] + w[0] * h[1] + w[1] * h[2] + w[2] * h[3];
}

template <class VertexHandle>
Eigen::Vector3d point_of(const VertexHandle& v) {
  const auto& q = v->point();
  if constexpr (requires { q.z(); }) return {q.x(), q.y(), q.z()};
  else return {q.x(), q.y(), 0.0};
}

// Vertex handles sorted by their sample's index.
template <class VertexHandle, std::size_t N>
void by_index(std::array<VertexHandle, N>& v) {
  std::sort(v.begin(), v.end(), [](const VertexHandle& a, const VertexHandle& b) { return a->info().index < b->info().index; });
}

template <class VertexHandle, std::size_t N>
double interpolate(const Eigen::Vector3d& p, std::array<VertexHandle, N> v) {
  by_index(v);
  if constexpr (N == 1) return v[0]->info().value;
  else if constexpr (N == 2) return on_segment(p, point_of(v[0]), v[0]->info().value, point_of(v[1]), v[1]->info().value);
  else if constexpr (N == 3)
    return on_triangle(p, point_of(v[0]), v[0]->info().value, point_of(v[1]), v[1]->info().value, point_of(v[2]),
                       v[2]->info().value);
  else
    return in_tetrahedron(p, {point_of(v[0]), point_of(v[1]), point_of(v[2]), point_of(v[3])},
                          {v[0]->info().value, v[1]->info().value, v[2]->info().value, v[3]->info().value});
}

template <class Dt>
std::unique_ptr<Dt> triangulate(const Samples& s) {
  std::vector<std::pair<typename Dt::Point, Info>> points;
  points.reserve(s.points.size());
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    if constexpr (Dt::Point::Ambient_dimension::value == 2) points.push_back({{p.x(), p.y()}, {s.values[i], static_cast<std::uint32_t>(i)}});
    else points.push_back({{p.x(), p.y(), p.z()}, {s.values[i], static_cast<std::uint32_t>(i)}});
  }
  auto dt = std::make_unique<Dt>();
  dt->insert(points.begin(), points.end());  // spatially sorted with a fixed seed: the same triangulation every run
  return dt;
}

// Lowers each vertex's value to the least, over all vertices, of theirs plus `grading` times the
// shortest path along the triangulation's edges (Dijkstra from every vertex at once); the samples'
// values follow (indices are the vertices' info).
template <class Dt>
void limit_gradient(Dt& dt, std::vector<double>& values, double grading) {
  using Vertex = typename Dt::Vertex_handle;
  using Item = std::pair<double, std::uint32_t>;
  std::vector<Vertex> by_index(values.size());
  for (auto v = dt.finite_vertices_begin(); v != dt.finite_vertices_end(); ++v) by_index[v->info().index] = v;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  for (std::uint32_t i = 0; i < values.size(); ++i) queue.push({values[i], i});
  std::vector<Vertex> around;
  while (!queue.empty()) {
    const auto [value, i] = queue.top();
    queue.pop();
    if (value > values[i]) continue;  // an older, larger entry
    around.clear();
    if constexpr (std::is_same_v<Dt, Dt3>) {
      dt.finite_adjacent_vertices(by_index[i], std::back_inserter(around));
    } else {
      auto w = dt.incident_vertices(by_index[i]), end = w;
      if (w != nullptr)
        do
          if (!dt.is_infinite(w)) around.push_back(w);
        while (++w != end);
    }
    for (const Vertex& w : around) {
      const std::uint32_t j = w->info().index;
      const double through = value + grading * (point_of(w) - point_of(by_index[i])).norm();
      if (through < values[j]) {
        values[j] = through;
        queue.push({through, j});
      }
    }
  }
  for (std::uint32_t i = 0; i < values.size(); ++i) by_index[i]->info().value = values[i];
}

// Where walks to points start (start_grid.hpp), about two samples a grid cell: a start is then within a
// sample or two of any point.
template <class Dt, class HandleOf>
auto start_grid(const Dt& dt, const Samples& samples, HandleOf handle_of) {
  std::vector<typename Dt::Vertex_handle> by_index(samples.points.size());
  for (auto v = dt.finite_vertices_begin(); v != dt.finite_vertices_end(); ++v) by_index[v->info().index] = v;
  using Handle = decltype(handle_of(by_index.front()));
  return spacing_detail::StartGrid<Handle>(samples.points, samples.dim, 2.0,
                                           [&](std::size_t i) { return handle_of(by_index[i]); });
}

class SampleModel final : public spacing_detail::Model {
 public:
  SampleModel(Samples samples, double grading, std::string description)
      : samples_(std::move(samples)), neighbours_(samples_.points, samples_.dim), description_(std::move(description)) {
    if (samples_.dim == 2) dt2_ = triangulate<Dt2>(samples_);
    else dt3_ = triangulate<Dt3>(samples_);
    if (grading > 0 && dt2_) limit_gradient(*dt2_, samples_.values, grading);
    if (grading > 0 && dt3_) limit_gradient(*dt3_, samples_.values, grading);
    if (dt2_ && dt2_->dimension() == 2) {  // the walk of flat_triangulation.hpp, CGAL's records freed
      flat_ = spacing_detail::FlatTriangulation(*dt2_, samples_.points);
      dt2_.reset();
    }
    if (dt3_) starts3_ = start_grid(*dt3_, samples_, [](const Dt3::Vertex_handle& v) { return v->cell(); });
  }
  std::unique_ptr<spacing_detail::Probe> probe() const override;
  std::string describe() const override { return description_; }

  // Outside the hull: inverse-distance weights of the 2d nearest samples (a sample at the point: its value).
  double outside(const Eigen::Vector3d& p) const { return neighbours_.inverse_distance(p, samples_.values, 2 * samples_.dim); }

  const Dt2* dt2() const { return dt2_.get(); }  // null for samples in general position (then flat())
  const Dt3* dt3() const { return dt3_.get(); }
  const spacing_detail::FlatTriangulation& flat() const { return flat_; }
  const spacing_detail::StartGrid<Dt3::Cell_handle>& starts3() const { return starts3_; }

 private:
  Samples samples_;
  spacing_detail::SampleNeighbours neighbours_;
  std::string description_;
  std::unique_ptr<Dt2> dt2_;
  std::unique_ptr<Dt3> dt3_;
  spacing_detail::FlatTriangulation flat_;
  spacing_detail::StartGrid<Dt3::Cell_handle> starts3_;
};

// One evaluator's walk through the triangulation, starting where its last point was found when the
// next is near it, else at the start grid's face for it.
class SampleProbe2 final : public spacing_detail::Probe {
 public:
  explicit SampleProbe2(const SampleModel& m) : m_(m) {}
  double at(double x, double y, double) override {
    const Eigen::Vector3d p(x, y, 0.0);
    if (m_.dt2()) return on_line(p);
    const auto& flat = m_.flat();
    if (last_face_ < 0 || !flat.starts().near(last_, p)) last_face_ = flat.starts().at(p);
    last_ = p;
    using Kind = spacing_detail::FlatTriangulation::Kind;
    const auto where = flat.locate(last_face_, x, y);
    last_face_ = where.face;
    const auto& face = flat.face(where.face);
    const auto corner = [&](int i) { return Eigen::Vector3d(face.x[i], face.y[i], 0.0); };
    switch (where.kind) {  // corners in sample order, as interpolate() takes them
      case Kind::kFace:
        return on_triangle(p, corner(0), face.value[0], corner(1), face.value[1], corner(2), face.value[2]);
      case Kind::kEdge: {
        const int a = (where.i + 1) % 3, b = (where.i + 2) % 3;
        return on_segment(p, corner(std::min(a, b)), face.value[std::min(a, b)], corner(std::max(a, b)), face.value[std::max(a, b)]);
      }
      case Kind::kCorner: return face.value[where.i];
      default: return m_.outside(p);
    }
  }

 private:
  // Samples on one line: CGAL's triangulation of dimension 1 (or 0) decides.
  double on_line(const Eigen::Vector3d& p) {
    const Dt2& dt = *m_.dt2();
    typename Dt2::Locate_type lt;
    int li = 0;
    const auto f = dt.locate({p.x(), p.y()}, lt, li, hint_);
    if (lt == Dt2::VERTEX || lt == Dt2::EDGE) hint_ = f;
    if (lt == Dt2::VERTEX) return f->vertex(li)->info().value;
    if (lt == Dt2::EDGE) return interpolate<Dt2::Vertex_handle, 2>(p, {f->vertex(Dt2::cw(li)), f->vertex(Dt2::ccw(li))});
    return m_.outside(p);
  }

  const SampleModel& m_;
  std::int32_t last_face_ = -1;
  Eigen::Vector3d last_ = Eigen::Vector3d::Zero();
  Dt2::Face_handle hint_;
};

class SampleProbe3 final : public spacing_detail::Probe {
 public:
  explicit SampleProbe3(const SampleModel& m) : m_(m) {}
  double at(double x, double y, double z) override {
    const Dt3& dt = *m_.dt3();
    const Eigen::Vector3d p(x, y, z);
    typename Dt3::Locate_type lt;
    int li = 0, lj = 0;
    const auto c = dt.locate(Dt3::Point(x, y, z), lt, li, lj, start(p));
    if (lt == Dt3::VERTEX || lt == Dt3::EDGE || lt == Dt3::FACET || lt == Dt3::CELL) hint_ = c;  // as in 2D
    switch (lt) {
      case Dt3::VERTEX: return c->vertex(li)->info().value;
      case Dt3::EDGE: return interpolate<Dt3::Vertex_handle, 2>(p, {c->vertex(li), c->vertex(lj)});
      case Dt3::FACET:
        return interpolate<Dt3::Vertex_handle, 3>(
            p, {c->vertex((li + 1) & 3), c->vertex((li + 2) & 3), c->vertex((li + 3) & 3)});
      case Dt3::CELL:
        return interpolate<Dt3::Vertex_handle, 4>(p, {c->vertex(0), c->vertex(1), c->vertex(2), c->vertex(3)});
      default: return m_.outside(p);
    }
  }

 private:
  Dt3::Cell_handle start(const Eigen::Vector3d& p) {  // as in 2D
    if (hint_ == Dt3::Cell_handle() || !m_.starts3().near(last_, p)) hint_ = m_.starts3().at(p);
    last_ = p;
    return hint_;
  }
  const SampleModel& m_;
  Dt3::Cell_handle hint_;
  Eigen::Vector3d last_ = Eigen::Vector3d::Zero();
};

std::unique_ptr<spacing_detail::Probe> SampleModel::probe() const {
  if (samples_.dim == 2) return std::make_unique<SampleProbe2>(*this);
  return std::make_unique<SampleProbe3>(*this);
}

void check_samples(int dim, const std::vector<double>& positions, const std::vector<double>& values,
                   const SampleSpacingOptions& options) {
  if (dim != 2 && dim != 3) throw std::invalid_argument("samples have 2 or 3 coordinates, not " + std::to_string(dim));
  if (positions.size() != values.size() * static_cast<std::size_t>(dim))
    throw std::invalid_argument(std::to_string(positions.size() / static_cast<std::size_t>(dim)) + " positions but " +
                                std::to_string(values.size()) + " values: give one value per position");
  if (values.size() < static_cast<std::size_t>(dim) + 1)
    throw std::invalid_argument(std::to_string(values.size()) + " samples, fewer than the " + std::to_string(dim + 1) +
                                " a " + std::to_string(dim) + "D interpolant needs");
  for (std::size_t i = 0; i < positions.size(); ++i)
    if (!std::isfinite(positions[i]))
      throw std::invalid_argument("sample " + std::to_string(i / static_cast<std::size_t>(dim)) + " has a coordinate that is not finite");
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]) || !(values[i] > 0))
      throw std::invalid_argument("sample " + std::to_string(i) + " has the value " + std::to_string(values[i]) +
                                  ": every value must be positive and finite");
  if (!std::isfinite(options.scale) || !(options.scale > 0)) throw std::invalid_argument("scale must be positive and finite");
  if (!(options.min >= 0) || !(options.max > 0) || !(options.min <= options.max))
    throw std::invalid_argument("min and max must satisfy 0 <= min <= max, max > 0");
  if (!std::isfinite(options.grading) || options.grading < 0) throw std::invalid_argument("grading must be 0 or more");
}

}  // namespace

Spacing sample_spacing(int dim, std::vector<double> positions, std::vector<double> values, const SampleSpacingOptions& options) {
  check_samples(dim, positions, values, options);
  Samples s = canonical(dim, positions, values, options);
  // Copies of one position count once: a triangulation of fewer distinct points has no face or edge to
  // locate a point in.
  if (s.points.size() < static_cast<std::size_t>(dim) + 1)
    throw std::invalid_argument(std::to_string(values.size()) + " samples at " + std::to_string(s.points.size()) +
                                " distinct positions, fewer than the " + std::to_string(dim + 1) + " a " +
                                std::to_string(dim) + "D interpolant needs");
  positions.clear();
  positions.shrink_to_fit();
  values.clear();
  values.shrink_to_fit();
  return Spacing::from_model(std::make_shared<const SampleModel>(std::move(s), options.grading, options.description));
}

}  // namespace nodegen
