// Feature corners and curves of a mesh leaf as nodes (see feature_placement.hpp).
#include "geometry/mesh/feature_placement.hpp"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace nodegen::geometry_detail {
namespace {

// The least distance between two feature nodes, in h: the faces' own.
constexpr double kFeatureSpacing = kMeshNodeSpacing;

// Whether a node bounds the leaf's solid (always, but under the winding number), its normal turned to
// face out of it.
bool facing_out(const FeatureLeaf& leaf, const Vec<3>& pos, Vec<3>& normal) {
  if (!leaf.side) return true;
  const int s = leaf.side(pos, normal);
  if (s < 0) normal = -normal;
  return s != 0;
}

void place_feature_corner(const FeatureLeaf& leaf, const FeatureCorner& corner, BoundarySink<3>& sink,
                          PointGrid<3>& placed) {
  Vec<3> pos = leaf.where.point(corner.point), normal = leaf.where.normal(corner.normal);
  // Tested here as well as with the curves' nodes, so a corner inside the solid crowds out none that bounds it.
  if (placed.any_within(pos, kFeatureSpacing * sink.h(pos)) || !facing_out(leaf, pos, normal)) return;
  int id = std::numeric_limits<int>::max();
  for (std::uint32_t t : corner.faces) id = std::min(id, leaf.part(t));
  if (leaf.lift && !corner.faces.empty())
    leaf.lift(std::vector<std::size_t>(corner.faces.begin(), corner.faces.end()), pos, normal);
  place_corner<3>(pos, normal, id, sink, &placed);
}

// A feature curve as a Curve: the polyline in world coordinates, parameterised by its length.
void place_feature_curve(const FeatureLeaf& leaf, const FeatureCurve& fc, BoundarySink<3>& sink, PointGrid<3>& placed) {
  std::vector<Vec<3>> points;
  for (const Vec<3>& p : fc.points) points.push_back(leaf.where.point(p));
  if (fc.closed) points.push_back(points.front());
  std::vector<double> length{0.0};
  for (std::size_t i = 1; i < points.size(); ++i) length.push_back(length.back() + (points[i] - points[i - 1]).norm());
  if (!(length.back() > 0)) return;
  // The segment holding parameter t, and how far along it t is (0 to 1).
  auto locate = [&](double t) {
    const auto at = std::upper_bound(length.begin(), length.end(), t);
    const std::size_t i = std::min<std::size_t>(at == length.begin() ? 0 : static_cast<std::size_t>(at - length.begin()) - 1,
                                                points.size() - 2);
    const double span = length[i + 1] - length[i];
    return std::pair{i, span > 0 ? std::clamp((t - length[i]) / span, 0.0, 1.0) : 0.0};
  };
  auto vertex = [&](std::size_t i) { return fc.vertices[i % fc.vertices.size()]; };
  Curve<3> c;
  c.t0 = 0.0;
  c.t1 = length.back();
  c.closed = fc.closed;
  c.point = [&](double t) {
    const auto [i, a] = locate(t);
    return Vec<3>(points[i] + a * (points[i + 1] - points[i]));
  };
  c.normal = [&](double t) {
    const auto [i, a] = locate(t);
    return leaf.where.normal(leaf.features.curve_normal(fc, i, a));
  };
  c.id_at = [&](double t) {
    const auto& faces = fc.faces[locate(t).first];
    const int a = leaf.part(static_cast<std::size_t>(faces[0]));
    return faces[1] < 0 ? a : std::min(a, leaf.part(static_cast<std::size_t>(faces[1])));
  };
  c.facets = [&](double t) {
    const std::size_t i = locate(t).first;
    const Vec<3> along = (points[i + 1] - points[i]).normalized();
    std::vector<Facet<3>> facets;
    for (const std::int64_t f : fc.faces[i]) {
      if (f < 0) continue;
      const auto face = static_cast<std::size_t>(f);
      const Vec<3> d = leaf.where.point(leaf.features.third_corner(face, vertex(i), vertex(i + 1))) - points[i];
      const Vec<3> into = d - d.dot(along) * along;
      if (!(into.norm() > 0)) continue;
      facets.push_back({into.normalized(), leaf.where.normal(leaf.features.face_normal(face)), leaf.part(face)});
    }
    return facets;
  };
  if (leaf.lift)
    c.finish = [&](double t, Vec<3>& pos, Vec<3>& normal) {
      const auto& faces = fc.faces[locate(t).first];
      std::vector<std::size_t> triangles{static_cast<std::size_t>(faces[0])};
      if (faces[1] >= 0) triangles.push_back(static_cast<std::size_t>(faces[1]));
      leaf.lift(triangles, pos, normal);
    };
  place_curve(c, sink, &placed);
}

}  // namespace

void place_features(const FeatureLeaf& leaf, BoundarySink<3>& sink, PointGrid<3>& placed) {
  const std::size_t first = sink.nodes().size();
  PointGrid<3> scratch(placed.cell());
  for (const FeatureCorner& corner : leaf.features.corners()) place_feature_corner(leaf, corner, sink, scratch);
  for (const FeatureCurve& curve : leaf.features.curves()) place_feature_curve(leaf, curve, sink, scratch);
  // Curves that meet at a corner at a narrow angle, a curve shorter than two spacings (its one inner
  // node may lie 0.75 h from its ends) and corners close together place nodes nearer than the faces'
  // nodes ever are: in the order placed (corners, then curve by curve), a node within 0.92 h of one kept
  // before is dropped, as is one that bounds nothing. Junction nodes (a CSG boundary) are the sink's to
  // space.
  auto& nodes = sink.nodes();
  std::size_t kept = first;
  for (std::size_t i = first; i < nodes.size(); ++i) {
    RawNode<3>& node = nodes[i];
    if (!node.junction) {
      // The spacing first: a grid lookup spares the side test's inside tests (the same nodes are kept).
      if (placed.any_within(node.pos, kFeatureSpacing * sink.h(node.pos))) continue;
      if (!facing_out(leaf, node.pos, node.normal)) continue;
      placed.insert(node.pos);
    }
    nodes[kept++] = node;
  }
  nodes.resize(kept);
}

}  // namespace nodegen::geometry_detail
