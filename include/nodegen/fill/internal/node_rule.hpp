#pragma once
// NodeRule: PNP's rule for one expanded node (Slak & Kosec 2019; Medusa's GeneralFill is the
// reference): which of its candidates become nodes.
//
// Algorithm: node p with spacing r proposes candidates on the circle (2D) or sphere (3D) of radius r
// around it, the candidate directions (candidates.hpp) turned by a random rotation drawn from the seed
// and the bits of p's coordinates, which unlike its store slot do not depend on when p was placed. A
// candidate is accepted when it lies inside the domain and no node, old or accepted just before it
// from p, lies within zeta r (kZeta r) of it. In 2D the ring is tried from the counter-clockwise end
// of a free run (ring_selection.hpp: fewer unfillable voids than Medusa's scan from the rotation's
// position 0; bench/RESULTS.md, Fill), in 3D in the directions' order.
//
// One neighbourhood query per expanded node instead of one proximity query per candidate: every node
// that can reject a candidate of p lies within reach(r) = r + zeta r of p, so the tree is asked once for
// that ball (gather_neighbours) and the 15-65 candidates are tested against the short list at once
// (candidate_test.hpp), then against the candidates of p already accepted. A crowd (more than the
// options' crowd nodes in the ball) is not gathered: each candidate asks the tree on its own instead
// (clear_by_queries), with the same answers.
//
// Concurrency: the rule only reads the tree and the domain; every thread has its own Scratch. The
// caller inserts the accepted nodes (the fill's tiles, pnp_fill.hpp).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "nodegen/fill/candidates.hpp"
#include "nodegen/fill/internal/candidate_test.hpp"
#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/ring_selection.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/splitmix.hpp"

namespace nodegen {

// A candidate closer than kZeta * h(p) to an existing node is rejected (Medusa's default).
inline constexpr double kZeta = 1.0 - 1e-10;

namespace fill_detail {

template <int D, class Tree, class DomainT>
class NodeRule {
 public:
  // One thread's scratch, reused by every node it expands.
  struct Scratch {
    Scratch() {
      neighbours.reserve(256);
      accepted.reserve(64);
    }
    std::vector<Vec<D>> accepted;  // propose's answer
    PointList<D> neighbours;       // nodes near the expanded node
    typename Tree::Finger finger;  // this thread's place in the tree: its last insert's path
    PointList<D> cands;            // the candidates by coordinate
    PointList<D> kept;             // 3D: the candidates kept so far
    CandidateTest<D> test;         // which candidates no node blocks (nearest_squared)
    std::vector<unsigned char> ring_free;  // 2D: which ring candidates are free (ring_selection.hpp)
    bool crowded = false;                  // the last gather stopped at the crowd (gather_neighbours)
  };

  // `candidates`: directions per node; `crowd`: FillOptions::crowd.
  NodeRule(const DomainT& domain, int candidates, std::uint64_t seed, std::size_t crowd)
      : domain_(domain),
        dirs_(unit_candidates<D>(candidates)),
        dirs_by_axis_(by_axis(dirs_)),
        box_diagonal_(domain.bounding_box().size().norm()),
        seed_(seed),
        crowd_(crowd) {}

  // Radius of the ball around p that holds every node able to reject a candidate of p.
  static double reach(double r) { return (r + kZeta * r) * (1.0 + 1e-12); }

  // Proposes the candidates of the node at p with spacing r and keeps in s.accepted those that
  // survive; false when none does.
  bool propose(const Vec<D>& p, double r, const Tree& tree, Scratch& s) const {
    // p lies in the domain's box, so with r above the box's diagonal every candidate lies outside it and
    // none can be accepted. Such a node (h 1e10 on part of the domain) would otherwise ask the tree for
    // its whole content, each of them.
    if (r > box_diagonal_) return false;
    place_candidates(p, r, s);
    gather_neighbours(p, reach(r), tree, s);
    select_candidates(p, r, tree, s);
    return !s.accepted.empty();
  }

 private:
  // The rotation of a node's candidates: drawn from the seed and the bits of its coordinates, which
  // (unlike its store slot) do not depend on when it was placed.
  std::uint64_t rotation_key(const Vec<D>& p) const {
    std::uint64_t k = mix64(seed_);
    for (int a = 0; a < D; ++a) k = mix64(k ^ std::bit_cast<std::uint64_t>(p[a]));
    return k;
  }

  // Not inlined, on purpose: the compiler laid out the k-d tree query differently in different
  // callers; one out-of-line copy keeps the measured code the same wherever it runs
  // (KdTree::search_leaves is kept out of line for the same reason).
  //
  // The expanded node p itself is left out: its candidates lie at distance r from it by construction,
  // but only up to the rounding of their coordinates, and zeta's margin (1e-10 r) is below that
  // rounding once |x| / r exceeds ~1e5 (a domain at x = 1e6 with h = 0.01: each coordinate rounds by
  // 1.2e-10, 1.7e-8 r). There the parent would reject its own candidates at random, leaving fewer nodes
  // and larger holes. Any other node at exactly r from a candidate is a coincidence of measure zero.
  // (The tree holds p at its grid point, the one Tree::kept gives for the very doubles p was read from,
  // so the test is exact.)
  //
  // A crowd (more than crowd_ nodes in the ball) is not gathered: s.crowded is set and each candidate
  // asks the tree on its own instead (select_candidates). A node whose spacing jumps far above its
  // neighbours' (h = 0.0005 beside 0.5: the coarse h of the fine nodes just across the jump) has all
  // of them in its ball: gathering them for each such node would cost far more than the queries.
  [[gnu::noinline]] void gather_neighbours(const Vec<D>& p, double radius, const Tree& tree, Scratch& s) const {
    s.neighbours.clear();
    const Vec<D> self = tree.kept(p);
    s.crowded = !tree.for_each_within(p, radius, [&](std::uint32_t, const Vec<D>& q) {
      if (q != self) s.neighbours.push(q);
    }, s.finger, crowd_);
  }

  // What nearest_squared gives, by asking the tree for each candidate whether some node other than p
  // lies within rz (= kZeta r). The tree's test sums the same
  // squares in the same order and compares with the same rz * rz as select_candidates, up to the
  // rounding of the candidate against the tree's grid (KdTree's distances2, up to 2^-22 of a grid
  // step), so every candidate is kept or refused as the gathered neighbours would decide unless a node
  // lies within that of zeta r from it.
  void clear_by_queries(const Vec<D>& p, double rz, const Tree& tree, Scratch& s) const {
    s.test.reset(s.cands.size());
    for (std::size_t i = 0; i < s.cands.size(); ++i)
      if (!tree.exists_within(s.cands.at(i), rz, p, s.finger)) s.test.set_clear(i);
  }

  // Keeps the candidates of the node at p with spacing r inside the domain with no node of
  // s.neighbours, nor any candidate kept before them, within zeta*r (rz2 = its square), in s.accepted:
  // 2D in ring_selection.hpp's order, 3D in order. First every candidate's nearest neighbour, all
  // candidates at once (nearest_squared); then the candidates no neighbour blocks are tried in order,
  // against the candidates kept before them.
  void select_candidates(const Vec<D>& p, double r, const Tree& tree, Scratch& s) const {
    const double rz = kZeta * r, rz2 = rz * rz;
    s.accepted.clear();
    if (s.crowded) clear_by_queries(p, rz, tree, s);
    else nearest_squared<D>(p, reach(r), s.cands, s.neighbours, rz2, s.test);
    if constexpr (D == 2) {
      auto inside = [&](const Vec<2>& c) { return domain_.contains(c); };
      select_on_ring(s.cands.size(), [&](std::size_t k) { return s.cands.at(k); }, rz2, s.test.clear.data(), inside,
                     s.ring_free, s.accepted);
    } else {
      s.kept.clear();
      s.test.for_each_clear([&](std::size_t i) {  // the point is made only for the few no node blocks
        const Vec<D> c = s.cands.at(i);
        if (!clear_of<D>(c, s.kept, rz2) || !domain_.contains(c)) return;
        s.accepted.push_back(c);
        s.kept.push(c);  // later candidates of p keep their distance from it too
      });
    }
  }

  // The candidates of the node at p with spacing r, by coordinate in s.cands (in 2D the ring
  // select_on_ring walks).
  void place_candidates(const Vec<D>& p, double r, Scratch& s) const {
    const std::size_t n = dirs_.size();
    s.cands.resize(n);
    if constexpr (D == 2) {
      place_candidates_2d(dirs_by_axis_.x[0].data(), dirs_by_axis_.x[1].data(), n, p, r, rotation_key(p),
                          s.cands.x[0].data(), s.cands.x[1].data());
    } else {
      place_candidates_3d(dirs_by_axis_.x[0].data(), dirs_by_axis_.x[1].data(), dirs_by_axis_.x[2].data(), n, p, r,
                          rotation_key(p), s.cands.x[0].data(), s.cands.x[1].data(), s.cands.x[2].data());
    }
  }
  static PointList<D> by_axis(const std::vector<Vec<D>>& pts) {
    PointList<D> out;
    out.assign(pts);
    return out;
  }

  const DomainT& domain_;
  std::vector<Vec<D>> dirs_;
  PointList<D> dirs_by_axis_;  // the same directions by coordinate (the candidates are placed from these)
  double box_diagonal_;
  std::uint64_t seed_;
  std::size_t crowd_;  // FillOptions::crowd
};

}  // namespace fill_detail
}  // namespace nodegen
