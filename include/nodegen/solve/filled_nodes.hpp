#pragma once
// A domain file filled in-process into the arrays the reader returns (h evaluated at every node), for
// the solver check over seeds, its tests and the Neumann studies.
#include <cstdint>

#include "nodegen/fill/fill.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "nodegen/input/domain_file.hpp"
#include "nodegen/io/node_arrays.hpp"

namespace nodegen::solve {

// One thread, so a seed always gives the same nodes. Throws StoreFull past the domain's node cap.
inline io::NodeArrays filled_nodes(DomainFile domain, std::uint64_t seed) {
  domain.fill.seed = seed;
  return std::visit(
      [&](const auto& disc) {
        constexpr int D = std::decay_t<decltype(disc.positions.front())>::RowsAtCompileTime;
        io::NodeArrays out;
        out.dim = D;
        const Spacing::Evaluator h = domain.spacing.evaluator();
        for (const auto& p : disc.positions) {
          for (int a = 0; a < D; ++a) out.positions.push_back(p[a]);
          out.h.push_back(h(p));
        }
        for (const auto& n : disc.normals)
          for (int a = 0; a < D; ++a) out.normals.push_back(n[a]);
        out.types.assign(disc.types.begin(), disc.types.end());
        out.bmap.assign(disc.bmap.begin(), disc.bmap.end());
        return out;
      },
      fill_domain(domain, FillOptions{}));
}

}  // namespace nodegen::solve
