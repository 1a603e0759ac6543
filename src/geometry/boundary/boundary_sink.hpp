#pragma once
// What a leaf shape writes its boundary nodes into: spacing, the "is this on the combined boundary"
// filter, a seeded random generator, and the collected nodes with their priority for the final thinning.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include <nodegen/geometry/box.hpp>
#include <nodegen/geometry/spacing.hpp>
#include <nodegen/geometry/spacing_fault.hpp>
#include <nodegen/spatial/point.hpp>
#include <nodegen/storage/store_concept.hpp>

#include "geometry/boundary/junction_chains.hpp"
#include "geometry/boundary/point_grid.hpp"

namespace nodegen::geometry_detail {

// Lower priority wins when two nodes from different parts are too close: sharp features first.
enum Priority : int { corner_priority = 0, edge_priority = 1, surface_priority = 2 };

// A face of a part that meets others at a corner or edge node of that part: the unit direction from
// the node into the face (away from the corner or across the edge), the face's outward unit normal and
// its id.
template <int D>
struct Facet {
  Vec<D> into;
  Vec<D> normal;
  int id;
};

template <int D>
struct RawNode {
  Vec<D> pos;
  Vec<D> normal;
  int id;
  int priority;
  bool junction;  // placed by emit_junction (deduplicated across parts by absorb)
};

template <int D>
class BoundarySink {
 public:
  // keep(p, n) says whether a node of some part lies on the boundary of the whole domain; empty means
  // always (a domain without CSG). cell: grid cell size for the spacing checks (about the smallest h).
  // inside: the whole domain's inside test, used to find the normal at junctions. resolution: the
  // smallest offset from a point of the domain that its coordinates surely resolve (see
  // coordinate_resolution); probes around a point are never smaller. least_h: the least spacing the
  // domain's coordinates resolve (least_spacing, spacing.hpp). threads: how many a part may use
  // to place its nodes (keep and inside must then be safe to call concurrently).
  // max_nodes: the run's node cap. The sink (each forked one too) takes up to twice that before the
  // thinning where parts meet; beyond, StoreFull.
  BoundarySink(const Spacing& spacing, std::function<bool(const Vec<D>&, const Vec<D>&)> keep,
               std::function<bool(const Vec<D>&)> inside, double cell, double resolution, double least_h, std::uint64_t seed,
               int threads = 1, std::size_t max_nodes = std::numeric_limits<std::size_t>::max())
      : spacing_(spacing),
        threads_(threads < 1 ? 1 : threads),
        max_nodes_(max_nodes),
        limit_(max_nodes > std::numeric_limits<std::size_t>::max() / 2 ? max_nodes : 2 * max_nodes),
        h_(spacing.evaluator()),
        keep_(std::move(keep)),
        inside_(std::move(inside)),
        rng_(seed),
        junctions_(cell),
        cell_(cell),
        resolution_(resolution),
        least_h_(least_h) {}

  // h at p, checked as the loader checks its samples: an h of 0 (or below what the coordinates resolve)
  // between them made a face's advancing front step in place forever (a spot on a cube's edge).
  double h(const Vec<D>& p) const { return checked_spacing<D>(p, h_(p), least_h_); }
  const Spacing& spacing() const { return spacing_; }  // for parts that evaluate h on several threads
  int threads() const { return threads_; }
  bool keep(const Vec<D>& p, const Vec<D>& n) const { return !keep_ || keep_(p, n); }
  bool filtering() const { return static_cast<bool>(keep_); }
  std::mt19937_64& rng() { return rng_; }
  double cell() const { return cell_; }
  double resolution() const { return resolution_; }

  void emit(const Vec<D>& p, const Vec<D>& n, int id, int priority) {
    if (nodes_.size() >= limit_) refuse(static_cast<double>(nodes_.size()) + 1);
    nodes_.push_back({p, n, id, priority, false});
  }

  // Throws StoreFull when a part would place `count` nodes, more than the sink takes: called before a
  // part allocates for them (one edge of a thin domain asked for 2e12).
  void check_count(double count) const {
    if (!(count <= static_cast<double>(limit_))) refuse(count);
  }

  // A sink for a part placed on another thread: the same spacing, filter, inside test and cell, its own
  // spacing evaluator and random stream (seeded by the caller, so results do not depend on which thread
  // runs the part). absorb() moves its nodes into this sink afterwards.
  BoundarySink fork(std::uint64_t seed) const {
    BoundarySink part(spacing_, keep_, inside_, cell_, resolution_, least_h_, seed, 1, max_nodes_);
    part.region_ = region_;
    return part;
  }

  // Where a node can lie on the combined boundary: the domain's bounding box, a little widened. Curves
  // (place_curve), faces (fill_patch) and meshes (sample_triangles) place no nodes beyond it: an edge
  // of a child far larger than the result (a box of 8e5 intersected with a unit disk) placed and
  // tested millions of nodes no keep() accepts, gigabytes of them.
  void set_region(const Box<D>& region) { region_ = region; }
  const std::optional<Box<D>>& region() const { return region_; }

  // Appends the nodes of a forked sink, dropping its junction nodes within 0.9 h of a junction node
  // this sink already has (as emit_junction would have, had the part been placed here), and its
  // junction points (3D).
  void absorb(BoundarySink&& part) {
    check_count(static_cast<double>(nodes_.size()) + static_cast<double>(part.nodes_.size()) +
                static_cast<double>(part.junction_points_.size()));
    for (const RawNode<D>& node : part.nodes_)
      if (!node.junction || claim_junction(node.pos, h(node.pos))) nodes_.push_back(node);
    junction_points_.insert(junction_points_.end(), part.junction_points_.begin(), part.junction_points_.end());
  }

  // A point where a part stops being on the combined boundary (a CSG junction). Several parts find the
  // same junction; only one node per spacing is kept. In 2D junctions are points, claimed as found; in
  // 3D they lie on curves, and settle_junctions() spaces them along the curve once every part is placed.
  // Its normal is neither part's: it points away from the solid as seen on a small sphere around p.
  void emit_junction(const Vec<D>& p, const Vec<D>& n, int id) {
    if constexpr (D == 3) {
      if (nodes_.size() + junction_points_.size() >= limit_) refuse(static_cast<double>(nodes_.size() + junction_points_.size()) + 1);
      junction_points_.push_back({p, n, id, corner_priority, true});
    } else {
      const double hp = h(p);
      if (claim_junction(p, hp)) nodes_.push_back({p, junction_normal(p, n, probe_radius(hp)), id, corner_priority, true});
    }
  }

  // The junction nodes of the 3D junction points found (emit_junction), spaced along their curves
  // (junction_chains.hpp), once all parts are placed.
  void settle_junctions() {
    std::vector<Vec<D>> points;
    points.reserve(junction_points_.size());
    for (const RawNode<D>& j : junction_points_) points.push_back(j.pos);
    for (const std::size_t k : space_along_chains<D>(points, cell_, [this](const Vec<D>& p) { return h(p); })) {
      const RawNode<D>& j = junction_points_[k];
      nodes_.push_back({j.pos, junction_normal(j.pos, j.normal, probe_radius(h(j.pos))), j.id, corner_priority, true});
    }
    junction_points_.clear();
  }

  // The normal and id of a corner or edge node p of a part (its own: n, id; its faces there: facets)
  // that keep() accepted. n, the bisector of the part's faces, is right only where every one of them
  // stays on the combined boundary. A face that another part covers (the shared face of a union) or
  // cuts away no longer bounds the solid next to p, and the combined surface there is made of the faces
  // that remain: flat where one remains (the corner (0,1) of [0,2]x[0,1] in a union with [0,1]x[1,2]
  // lies on the straight edge x = 0), an edge where two of a box corner's three remain. So the node gets
  // the normalised sum of the remaining faces' normals and the id of the first, a face whose surface is
  // on the combined boundary there. Each face is tested by keep() one probe radius into it from p. When
  // none remains (keep() accepted p only because the bisector probe straddles a thin gap), n and id stay.
  std::pair<Vec<D>, int> feature_normal(const Vec<D>& p, const Vec<D>& n, int id,
                                        const std::vector<Facet<D>>& facets) const {
    if (!keep_ || facets.empty()) return {n, id};
    const double r = probe_radius(h(p));
    Vec<D> sum = Vec<D>::Zero();
    int first = 0;
    std::size_t remaining = 0;
    for (const Facet<D>& f : facets) {
      if (!keep_(p + r * f.into, f.normal)) continue;
      if (remaining++ == 0) first = f.id;
      sum += f.normal;
    }
    if (remaining == facets.size() || remaining == 0 || !(sum.norm() > 1e-9)) return {n, id};
    return {sum.normalized(), first};
  }

  std::vector<RawNode<D>>& nodes() { return nodes_; }

 private:
  [[noreturn]] void refuse(double count) const {
    std::ostringstream out;
    out << "node cap of " << max_nodes_ << " nodes reached placing the boundary (it needs about " << count
        << " nodes or more); raise max_nodes / --max-nodes or use a larger spacing";
    throw StoreFull(out.str());
  }

  // How far from a boundary point p (spacing hp there) its surroundings are probed: 1e-3 h, but at
  // least 10 resolutions (p lies within about one keep() offset of a junction, and on a smaller sphere
  // the directions would round onto a few coordinate steps).
  double probe_radius(double hp) const { return std::max(1e-3 * hp, 10.0 * resolution_); }

  // Records a junction node at p (spacing hp there) unless one lies within 0.9 hp already; true when
  // p is new.
  bool claim_junction(const Vec<D>& p, double hp) {
    if (junctions_.any_within(p, 0.9 * hp)) return false;
    junctions_.insert(p);
    return true;
  }

  // Minus the mean of the directions (evenly spread over the circle / sphere of radius r) that lead
  // into the solid: the bisector of a corner, the normal of a smooth junction. Falls back to the part's
  // normal when every or no direction is inside.
  Vec<D> junction_normal(const Vec<D>& p, const Vec<D>& fallback, double r) const {
    if (!inside_) return fallback;
    constexpr int directions = D == 2 ? 72 : 400;
    Vec<D> sum = Vec<D>::Zero();
    int in = 0;
    for (int k = 0; k < directions; ++k) {
      Vec<D> d;
      if constexpr (D == 2) {
        const double a = 2.0 * 3.14159265358979323846 * (k + 0.5) / directions;
        d = Vec<D>(std::cos(a), std::sin(a));
      } else {  // Fibonacci sphere
        const double z = 1.0 - 2.0 * (k + 0.5) / directions;
        const double a = 2.39996322972865332 * k;
        const double s = std::sqrt(1.0 - z * z);
        d = Vec<D>(s * std::cos(a), s * std::sin(a), z);
      }
      if (inside_(p + r * d)) {
        sum += d;
        ++in;
      }
    }
    if (in == 0 || in == directions || !(sum.norm() > 1e-9 * directions)) return fallback;
    const Vec<D> n = -sum.normalized();
    return n.dot(fallback) > -0.5 ? n : fallback;  // guard against a misread of a thin sliver
  }

  std::optional<Box<D>> region_;
  Spacing spacing_;
  int threads_;
  std::size_t max_nodes_;
  std::size_t limit_;
  Spacing::Evaluator h_;
  std::function<bool(const Vec<D>&, const Vec<D>&)> keep_;
  std::function<bool(const Vec<D>&)> inside_;
  std::mt19937_64 rng_;
  PointGrid<D> junctions_;
  double cell_;
  double resolution_;
  double least_h_;
  std::vector<RawNode<D>> nodes_;
  std::vector<RawNode<D>> junction_points_;  // 3D: found, not yet settled (their normals the parts')
};

}  // namespace nodegen::geometry_detail
