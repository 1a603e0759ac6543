#pragma once
// Reading domain files (domains/*.json; format in docs/domain-format.md): what one run is asked for,
// the domain (geometry), its spacing and the fill's parameters. Every problem with the input (syntax,
// unknown shape, missing mesh or one that encloses no volume, bad spacing, wrong types) throws
// InputError whose what() is one line "FILE: FIELD: REASON".
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "nodegen/fill/fill_params.hpp"
#include "nodegen/geometry/domain.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/spacing.hpp"

namespace nodegen {

struct DomainFile {
  std::filesystem::path path;  // as given to the loader
  std::string text;            // the file's JSON text (kept for output metadata)
  int dim = 2;
  std::string comment;
  std::variant<std::shared_ptr<const Domain<2>>, std::shared_ptr<const Domain<3>>> domain;
  Spacing spacing;
  FillParams fill;
  // The loader's rough node count for `spacing` (measure / h^d inside plus a staircase boundary, from
  // a 64^d grid; 0 when the grid missed the shape's inside): the fill reserves room by it (fill.hpp).
  // Unset: the fill reserves the cap. Set it again when replacing `spacing`.
  std::optional<double> expected_nodes;
  // Its two terms, inside and on the boundary (a target count scales them by h^-d and h^-(d-1)).
  double expected_interior = 0.0, expected_boundary = 0.0;
  // The node count asked for (fill.nodes, --nodes): fill_domain scales the spacing by one factor to
  // land within 2 % of it. Unset: the spacing as written.
  std::optional<std::size_t> target_nodes;
  std::vector<std::filesystem::path> inputs;  // the files it refers to (meshes, polygon point files), resolved
  std::vector<std::string> repairs;           // what was mended in its meshes, one line each ("NAME: WHAT")
};

// What a run changes in a domain file as it loads it (the CLI's options).
struct LoadOptions {
  // --max-nodes: replaces fill.max_nodes before the spacing is checked against it.
  std::optional<std::size_t> max_nodes;
  // --set KEY=VALUE, in order: KEY a field's path ("spacing", "fill.seed", "shape.children[1].radius"),
  // VALUE JSON (a number, an object, ...) or else taken as a string. The file's text becomes the
  // changed document (DomainFile::text), so the output records what was run.
  std::vector<std::string> overrides;
  // Reads spacing sample files and CAD parts in a child process first (geometry/child_read.hpp), where a
  // library's crash or endless loop on a hostile file is one error line; off where forking is unwelcome.
  bool isolate_reads = true;
};

// Reads and validates a domain file. Relative paths inside it (meshes, polygon point files, sample
// files) are resolved against the file's folder.
DomainFile load_domain_file(const std::filesystem::path& path, const LoadOptions& options);
DomainFile load_domain_file(const std::filesystem::path& path, std::optional<std::size_t> max_nodes = std::nullopt);

// Same, from JSON text already in memory; `path` is used for error messages and to resolve relative
// paths (its parent folder), and need not exist.
DomainFile parse_domain_text(const std::string& text, const std::filesystem::path& path, const LoadOptions& options);
DomainFile parse_domain_text(const std::string& text, const std::filesystem::path& path,
                             std::optional<std::size_t> max_nodes = std::nullopt);

// The same domain file with its spacing replaced (the in-process API's spacing argument, nodegen.hpp):
// its dist("NAME") bound to the domain's parts, checked over the domain as the loader checks a file's
// (spacing_reader.hpp, check_spacing), and the node estimate made again for it. The file's text keeps
// the spacing it was written with. Throws InputError at "spacing".
DomainFile with_spacing(const DomainFile& file, Spacing spacing);

}  // namespace nodegen
