#include "geometry/boundary/cube_chart.hpp"

#include "geometry/boundary/cube_facets.hpp"
#include "nodegen/parallel/thread_team.hpp"

namespace nodegen::geometry_detail {

void cover_cube_chart(const CubeChart& chart, BoundarySink<3>& sink) {
  PointGrid<3> occupied(sink.cell());
  // The faces meeting at a corner or edge point of a sharp chart (a box): see feature_normal.
  auto facets = [&chart](const Vec<3>& c) { return cube_facets<3>(c, chart.point, chart.normal, chart.face_id); };
  std::vector<Vec<3>> border;  // cube coordinates of every corner and edge node placed

  for (int i = 0; i < 8; ++i) {
    const Vec<3> c((i & 1) ? 1.0 : -1.0, (i & 2) ? 1.0 : -1.0, (i & 4) ? 1.0 : -1.0);
    const Vec<3> p = chart.point(c);
    if (chart.sharp) {
      place_corner(p, chart.normal(c), chart.face_id(0, c[0] > 0), sink, &occupied, facets(c));
    } else {
      occupied.insert(p);
      if (sink.keep(p, chart.normal(c))) sink.emit(p, chart.normal(c), chart.face_id(0, c[0] > 0), surface_priority);
    }
    border.push_back(c);
  }
  for (int axis = 0; axis < 3; ++axis) {
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    for (int s = 0; s < 4; ++s) {
      Vec<3> base = Vec<3>::Zero();
      base[a1] = (s & 1) ? 1.0 : -1.0;
      base[a2] = (s & 2) ? 1.0 : -1.0;
      auto at = [base, axis](double t) {
        Vec<3> c = base;
        c[axis] = t;
        return c;
      };
      Curve<3> edge;
      edge.point = [&, at](double t) { return chart.point(at(t)); };
      edge.normal = [&, at](double t) { return chart.normal(at(t)); };
      edge.t0 = -1.0;
      edge.t1 = 1.0;
      edge.id = chart.face_id(a1, base[a1] > 0);
      edge.priority = chart.sharp ? edge_priority : surface_priority;
      if (chart.sharp) edge.facets = [facets, at](double t) { return facets(at(t)); };
      for (double t : place_curve(edge, sink, &occupied)) border.push_back(at(t));
    }
  }
  // The six faces, from the corner and edge nodes, each on its own forked sink and its own copy of the
  // border grid, on up to six threads. A face's front never leaves its parameter square, and near a
  // shared edge the nodes of two faces are at least ~1.2 h apart (each keeps 0.99 h from the edge nodes,
  // which are about h apart along the edge), so one face needs no other face's nodes; the random
  // streams are drawn here in face order, so the nodes do not depend on the thread count.
  std::vector<Patch> faces;
  std::vector<std::vector<Vec<2>>> seeds;
  std::vector<BoundarySink<3>> parts;
  for (int axis = 0; axis < 3; ++axis) {
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const double level = side ? 1.0 : -1.0;
      auto at = [=](const Vec<2>& u) {
        Vec<3> c;
        c[axis] = level;
        c[a1] = u[0];
        c[a2] = u[1];
        return c;
      };
      Patch face;
      face.point = [&, at](const Vec<2>& u) { return chart.point(at(u)); };
      if (chart.sharp) {
        // A box face is flat: its normal is the one at its centre on its border too, where chart.normal
        // gives the edge's bisector. With that, the border seeds of a face a CSG buries (the shared
        // face of a union) looked kept, and each front step off them put a junction node bearing the
        // buried face's id on the edge.
        const Vec<3> flat = chart.normal(at(Vec<2>::Zero()));
        face.normal = [flat](const Vec<2>&) { return flat; };
      } else {
        face.normal = [&, at](const Vec<2>& u) { return chart.normal(at(u)); };
      }
      face.lo = Vec<2>(-1.0, -1.0);
      face.hi = Vec<2>(1.0, 1.0);
      face.id = chart.face_id(axis, side);
      faces.push_back(std::move(face));
      seeds.emplace_back();
      for (const auto& c : border)
        if (c[axis] == level) seeds.back().emplace_back(c[a1], c[a2]);
      parts.push_back(sink.fork(sink.rng()()));
    }
  }
  parallel_for_each_item(faces.size(), sink.threads(), [&](std::size_t f) {
    PointGrid<3> own = occupied;
    fill_patch(faces[f], seeds[f], own, parts[f]);
  });
  for (auto& part : parts) sink.absorb(std::move(part));
}

}  // namespace nodegen::geometry_detail
