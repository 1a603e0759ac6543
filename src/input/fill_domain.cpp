// fill_domain (input/fill_domain.hpp), compiled once for every caller.
#include "nodegen/input/fill_domain.hpp"

#include "nodegen/fill/fill.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <variant>

#include "nodegen/storage/release_free_heap.hpp"

namespace nodegen {
namespace {

template <int D>
constexpr int dimension_of(const Domain<D>*) {
  return D;
}

// The least room a fill reserves, in nodes: a few tens of MB of address space.
constexpr std::size_t kLeastReservation = 16384;

// The room the first fill reserves. The store and the k-d tree's arenas reserve address space (not
// memory) for every node they have room for, a few KB a node (bench/RESULTS.md, Fill). Sized by the
// cap (1e8 by default) that is hundreds of GB, which a virtual-memory limit (ulimit -v, a batch
// system's) refuses outright. Sized by twice the loader's estimate (its interior count is measure / h^d,
// a little below what the fill packs), a run asks for what its nodes justify, and an estimate that a
// coarse grid got wrong (a refinement narrower than its cells, a shape between its points) costs more
// fills, not a wrong result.
std::size_t first_reservation(const DomainFile& file, std::size_t boundary, const FillOptions& options) {
  const std::size_t cap = file.fill.max_nodes;
  if (options.reserve_nodes) return std::min(options.reserve_nodes, cap);
  if (!file.expected_nodes) return cap;
  const double want = 2.0 * std::max(0.0, *file.expected_nodes) + static_cast<double>(boundary + kLeastReservation);
  return want >= static_cast<double>(cap) ? cap : static_cast<std::size_t>(want);
}

// The boundary nodes as a discretization of their own (FillOptions::boundary_only), in the order the
// geometry placed them: the first rows of the whole fill's.
template <int D>
Discretization<D> boundary_alone(std::vector<BoundaryNode<D>> boundary) {
  Discretization<D> out;
  const std::size_t n = boundary.size();
  out.positions.reserve(n);
  out.normals.reserve(n);
  out.types.resize(n);
  out.bmap.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.positions.push_back(boundary[i].pos);
    out.normals.push_back(boundary[i].normal);
    out.types[i] = -boundary[i].boundary_id;
    out.bmap[i] = static_cast<std::int32_t>(i);
  }
  out.boundary_count = n;
  out.share.runs = {{0, n}};
  out.share.total_nodes = out.share.total_boundary = n;
  return out;
}

}  // namespace

AnyDiscretization fill_domain(const DomainFile& file, const FillOptions& options) {
  return std::visit(
      [&](const auto& domain_ptr) -> AnyDiscretization {
        const auto& domain = *domain_ptr;
        constexpr int D = dimension_of(static_cast<decltype(&domain)>(nullptr));
        const auto start = std::chrono::steady_clock::now();
        FillOptions run = options;
        for (int runs = 1;; ++runs) {
          const auto placing = std::chrono::steady_clock::now();
          decltype(domain.boundary_nodes(file.spacing, 0, 1, 0)) boundary;
          agreed_among(options.exchange, [&] {
            boundary = domain.boundary_nodes(file.spacing, file.fill.seed, options.threads, file.fill.max_nodes);
          });
          const auto placed = std::chrono::steady_clock::now();
          if (options.boundary_only) {
            auto out = boundary_alone<D>(std::move(boundary));
            out.fill_seconds = out.boundary_seconds = std::chrono::duration<double>(placed - start).count();
            return out;
          }
          if (runs == 1) run.reserve_nodes = first_reservation(file, boundary.size(), options);
          // The boundary placement's scratch is freed but stays resident unless trimmed, and the fill
          // never reuses it (its store and tree are mmap'd), so it would add to the peak (bench/RESULTS.md,
          // Fill).
          release_free_heap();
          try {
            // Moved in: the fill keeps only the boundary's normals and ids once the nodes are seeded.
            auto out = pnp_fill_on<D>(options.backend, domain, file.spacing, std::move(boundary), file.fill, run);
            out.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            out.boundary_seconds = std::chrono::duration<double>(placed - placing).count();
            out.reserved_nodes = run.reserve_nodes;
            out.fill_runs = runs;
            return out;
          } catch (const ReservationFull& e) {
            // Again with twice the room (at most the cap, where running out is the cap's error), so the
            // room never exceeds twice what the nodes need; the fills before cost at most the last
            // one's time. The boundary again too, since the fill consumed it.
            run.reserve_nodes = std::min(file.fill.max_nodes, 2 * e.reserved());
            if (options.progress) options.progress->store(0, std::memory_order_relaxed);
          }
        }
      },
      file.domain);
}

}  // namespace nodegen
