// fill_domain (fill.hpp), compiled once for every caller.
#include "nodegen/fill/fill.hpp"

#include <chrono>
#include <utility>
#include <variant>

#include "nodegen/fill/release_free_heap.hpp"

namespace nodegen {
namespace {

template <int D>
constexpr int dimension_of(const Domain<D>*) {
  return D;
}

}  // namespace

AnyDiscretization fill_domain(const DomainFile& file, const FillOptions& options) {
  return std::visit(
      [&](const auto& domain_ptr) -> AnyDiscretization {
        const auto& domain = *domain_ptr;
        constexpr int D = dimension_of(static_cast<decltype(&domain)>(nullptr));
        const auto start = std::chrono::steady_clock::now();
        auto boundary = domain.boundary_nodes(file.spacing, file.fill.seed, options.threads, file.fill.max_nodes);
        const double boundary_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // The boundary placement's scratch is freed but stays resident unless trimmed, and the fill
        // never reuses it (its store and tree are mmap'd): 7 B/node of peak RSS on a 1e6-node cube.
        release_free_heap();
        // Moved in: the fill keeps only the boundary's normals and ids once the nodes are seeded.
        auto out = pnp_fill_on<D>(options.backend, domain, file.spacing, std::move(boundary), file.fill, options);
        out.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.boundary_seconds = boundary_seconds;
        return out;
      },
      file.domain);
}

}  // namespace nodegen
