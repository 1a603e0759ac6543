// Domain file loader: JSON text -> shape tree, spacing and fill parameters (format:
// docs/domain-format.md), every problem one InputError naming the file, the JSON path of the offending
// field and the reason. The fields' readers live with what they read: the shape tree and the spacing
// in geometry (shape_reader.hpp, spacing_reader.hpp), the fill's parameters in fill_fields.hpp.
#include "nodegen/input/domain_file.hpp"

#include <cstdint>

#include "input/fill_fields.hpp"
#include "input/json_text.hpp"
#include "nodegen/geometry/input_file.hpp"
#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/geometry/shape_reader.hpp"
#include "nodegen/geometry/spacing_reader.hpp"

namespace nodegen {
namespace {

using nlohmann::json;

// "dim": 2 or 3, compared as the 64-bit integer the JSON holds (get<int>() narrowed 4294967298 to 2).
int read_dim(const JsonFields& fields, const json& root) {
  fields.only(root, "", {"dim", "spacing", "fill", "shape"});
  const json& dim = fields.require(root, "", "dim");
  if (!dim.is_number_integer() || (dim.get<std::int64_t>() != 2 && dim.get<std::int64_t>() != 3))
    fields.fail("dim", "must be 2 or 3, got " + dim.dump());
  return static_cast<int>(dim.get<std::int64_t>());
}

// The shape, and the spacing checked over it.
template <int D>
void read_domain(const JsonFields& fields, const json& root, DomainFile& out, bool cap_from_cli) {
  ReadShape<D> shape = read_shape<D>(fields, fields.require(root, "", "shape"));
  out.expected_nodes = check_spacing<D>(fields, out.spacing, *shape.domain, out.fill.max_nodes, cap_from_cli);
  out.domain = std::move(shape.domain);
  out.repairs = std::move(shape.repairs);
}

}  // namespace

DomainFile parse_domain_text(const std::string& text, const std::filesystem::path& path,
                             std::optional<std::size_t> max_nodes) {
  const json root = input_detail::parse_json_text(text, path.string());
  if (!root.is_object())
    throw InputError(path.string(), "(top level)", "expected a JSON object, got " + json_type_name(root));

  DomainFile out;
  out.path = path;
  out.text = text;
  out.dim = read_dim(JsonFields(path, 0), root);
  const JsonFields fields(path, out.dim);
  if (root.contains("comment")) out.comment = fields.string(root["comment"], "comment");
  out.spacing = read_spacing(fields, fields.require(root, "", "spacing"));
  out.fill = root.contains("fill") ? input_detail::read_fill_params(fields, root["fill"])
                                   : FillParams::defaults_for(out.dim);
  if (max_nodes) out.fill.max_nodes = *max_nodes;
  if (out.dim == 2) read_domain<2>(fields, root, out, max_nodes.has_value());
  else read_domain<3>(fields, root, out, max_nodes.has_value());
  out.inputs = fields.inputs();
  return out;
}

DomainFile load_domain_file(const std::filesystem::path& path, std::optional<std::size_t> max_nodes) {
  std::string text;
  try {
    text = read_input_file(path, InputFileLimits::kDomainFileBytes, "domain files");
  } catch (const InputFileError& e) {
    throw InputError(path.string(), "(file)", e.what());
  }
  return parse_domain_text(text, path, max_nodes);
}

}  // namespace nodegen
