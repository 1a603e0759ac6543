// Fills a domain file's domain with a spacing given as a C++ lambda, finds every node's 12 nearest
// neighbours, prints what a solver would use, and writes the nodes for ParaView.
//   graded_plate DOMAIN.json [OUT.h5]
#include <nodegen/nodegen.hpp>

#include <cstdio>
#include <map>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: graded_plate DOMAIN.json [OUT.h5]\n");
    return 2;
  }
  try {
    const nodegen::DomainSpec domain = nodegen::load_domain(argv[1]);
    if (domain.dim() != 2) {
      std::fprintf(stderr, "%s: a 2D domain, please\n", argv[1]);
      return 2;
    }
    nodegen::Options options;
    options.supports = 12;
    // Finer towards the origin: h grows from 0.004 by 0.03 per unit of distance.
    const auto nodes = nodegen::discretize<2>(
        domain, [](const nodegen::Point<2>& x) { return 0.004 + 0.03 * x.norm(); }, options);

    std::map<std::string, std::size_t> per_part;
    for (std::size_t i = 0; i < nodes.boundary_count(); ++i) ++per_part[nodes.part_name(i)];
    std::printf("%zu nodes, %zu on the boundary, in %.3f s\n", nodes.size(), nodes.boundary_count(), nodes.fill_seconds());
    for (const auto& [part, count] : per_part) std::printf("  %-24s %zu nodes\n", part.c_str(), count);
    const std::size_t last = nodes.size() - 1;
    std::printf("node %zu at (%.4f, %.4f), h = %.4f; its nearest neighbour is node %lld\n", last,
                nodes.positions()[last].x(), nodes.positions()[last].y(), nodes.h()[last],
                static_cast<long long>(nodes.supports()[last * 12 + 1]));
    std::printf("nodes_sha256 %s\n", nodes.nodes_sha256().c_str());
    if (argc > 2) nodes.write(argv[2]);
    return 0;
  } catch (const nodegen::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
