// Domain file loader: JSON -> shape tree, spacing and fill parameters, with one-line InputErrors that
// name the file, the JSON path of the offending field and the reason (format: docs/domain-format.md).
#include <nodegen/geometry/domain_file.hpp>

#include <nlohmann/json.hpp>

#include <nodegen/geometry/input_file.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <sstream>

#include "box_hierarchy.hpp"
#include "mesh_file_check.hpp"
#include "ring_crossings.hpp"
#include "shape.hpp"

namespace nodegen {
namespace {

// The range of coordinates the fill's arithmetic holds: squared distances (up to (2e100)^2 summed
// over 3 axes) stay finite. The spacing's range (kMinSpacing, kMaxCoordinateOverSpacing) is in
// spacing.hpp: the fill checks it too.
constexpr double kMaxCoordinate = 1e100;
// Shape trees deeper than this are refused at load: the loader, the inside test and the boundary
// placement recurse once per level, the inside test on the fill's threads. A tree at the limit runs in
// a 1 MiB stack in the release build (256 KiB was too little) and in the 8 MB of a thread under
// AddressSanitizer, whose frames are larger (1000 deep overflowed them); the CLI's stacks are sized
// for it whatever ulimit -s says (src/cli/thread_stacks.hpp). JSON nesting is
// refused beyond twice that plus the few levels around the tree (a CSG level is an object and its
// children array), before anything is built.
constexpr int kMaxShapeDepth = 256;
constexpr int kMaxJsonDepth = 2 * kMaxShapeDepth + 8;
constexpr std::size_t kMaxNameLength = 256;

using nlohmann::json;
using namespace geometry_detail;

std::string type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
  }
}

std::string num(double v) {
  if (std::isnan(v)) return "nan";  // not "-nan": the sign of a NaN means nothing to a user
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

class Loader {
 public:
  Loader(std::filesystem::path path, int dim) : path_(std::move(path)), dim_(dim) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw InputError(path_.string(), field, reason);
  }

  const json& require(const json& obj, const std::string& at, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(join(at, key), "missing");
    return *it;
  }
  static std::string join(const std::string& at, const std::string& key) { return at.empty() ? key : at + "." + key; }

  // Field names a JSON object may have; anything else is probably a typo worth reporting.
  void only(const json& obj, const std::string& at, std::set<std::string> allowed) const {
    allowed.insert({"comment", "name"});
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (!allowed.count(it.key())) {
        std::string known;
        for (const auto& k : allowed) known += (known.empty() ? "" : ", ") + k;
        fail(join(at, it.key()), "unknown field (expected one of: " + known + ")");
      }
  }

  double number(const json& j, const std::string& at) const {
    if (!j.is_number()) fail(at, "expected a number, got " + type_name(j));
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail(at, "must be finite");
    return v;
  }
  double positive(const json& j, const std::string& at) const {
    const double v = number(j, at);
    if (!(v > 0)) fail(at, "must be positive, got " + num(v));
    return v;
  }
  template <int D>
  Vec<D> vec(const json& j, const std::string& at) const {
    if (!j.is_array() || j.size() != static_cast<std::size_t>(D))
      fail(at, "expected an array of " + std::to_string(D) + " numbers, got " + type_name(j) +
                   (j.is_array() ? " of " + std::to_string(j.size()) : ""));
    Vec<D> v;
    for (int i = 0; i < D; ++i) v[i] = number(j[i], at + "[" + std::to_string(i) + "]");
    return v;
  }
  std::string string(const json& j, const std::string& at) const {
    if (!j.is_string()) fail(at, "expected a string, got " + type_name(j));
    return j.get<std::string>();
  }
  // Paths inside a domain file are relative to its folder. Each one is remembered (DomainFile::inputs),
  // so that a run can refuse to write its output over a file its domain reads.
  std::string resolve(const std::string& file) const {
    const std::filesystem::path p(file);
    inputs_.push_back(p.is_absolute() ? p : path_.parent_path() / p);
    return inputs_.back().string();
  }
  const std::vector<std::filesystem::path>& inputs() const { return inputs_; }
  const std::vector<std::string>& repairs() const { return repairs_; }

  // A boundary node of one child of a CSG node is kept or dropped by asking the children whose boxes
  // hold it (an intersection: all of them), so placing the boundary costs about (nodes) x (children
  // overlapping each child): linear in the nodes while children overlap a few others each, quadratic in
  // the children where they all overlap (20 000 copies of one disk, or an intersection of 20 000 boxes,
  // ran for minutes). Pairs of children whose boxes overlap are held to kMaxOverlapPairs, or 32 per child
  // for nodes of very many children (1e5 disjoint disks: about 2 per child).
  template <int D>
  void check_overlap_cost(CsgOp op, const std::vector<ShapePtr<D>>& children, const std::string& at) const {
    constexpr std::size_t kMaxOverlapPairs = std::size_t{1} << 20;
    const std::size_t k = children.size();
    const std::size_t limit = std::max(kMaxOverlapPairs, 32 * k);
    std::size_t pairs = 0;
    if (op == CsgOp::intersection) {
      pairs = k * (k - 1) / 2;
    } else {
      std::vector<Box<D>> boxes;
      boxes.reserve(k);
      for (const auto& c : children) boxes.push_back(c->bounds());
      pairs = BoxHierarchy<D>(std::move(boxes)).overlapping_pairs(limit);
    }
    if (pairs <= limit) return;
    if (op == CsgOp::intersection)
      fail(at + ".children", "an intersection of " + std::to_string(k) + " children asks each of them at every boundary node: " +
                                 std::to_string(pairs) + " pairs, above " + std::to_string(limit) +
                                 " (the boundary's cost grows with the pairs)");
    fail(at + ".children", std::to_string(k) + " children whose boxes overlap in more than " + std::to_string(limit) +
                               " pairs (a boundary node of one child is tested against every child overlapping it, so "
                               "the boundary's cost grows with the pairs)");
  }

  template <int D>
  ShapePtr<D> shape(const json& j, const std::string& at, int depth = 1) const {
    if (depth > kMaxShapeDepth)
      fail(at, "the shape tree is nested deeper than " + std::to_string(kMaxShapeDepth) + " levels");
    if (!j.is_object()) fail(at, "expected a shape object, got " + type_name(j));
    const std::string type = string(require(j, at, "type"), at + ".type");
    const std::string label = j.contains("name") ? string(j["name"], at + ".name") : at;
    // A part's name is repeated in the name of every part it makes (a polygon's holes: "NAME:hole7"),
    // in the output and in the report: bounded, so a long name cannot multiply into gigabytes.
    if (j.contains("name") && label.size() > kMaxNameLength)
      fail(at + ".name", "is " + std::to_string(label.size()) + " characters long, above the limit of " +
                             std::to_string(kMaxNameLength));
    auto wrong_dim = [&](int shape_dim) {
      fail(at + ".type", type + " is a " + std::to_string(shape_dim) + "D shape but the file has dim " +
                             std::to_string(dim_));
    };

    if (type == "box") {
      only(j, at, {"type", "min", "max"});
      const Vec<D> lo = vec<D>(require(j, at, "min"), at + ".min");
      const Vec<D> hi = vec<D>(require(j, at, "max"), at + ".max");
      if (!(hi.array() > lo.array()).all()) fail(at + ".max", "must exceed min in every coordinate");
      return make_box<D>(lo, hi, label);
    }
    if (type == "ball" || type == "disk" || type == "sphere") {
      if (type == "disk" && D != 2) wrong_dim(2);
      if (type == "sphere" && D != 3) wrong_dim(3);
      only(j, at, {"type", "center", "radius"});
      const Vec<D> c = vec<D>(require(j, at, "center"), at + ".center");
      return make_ball<D>(c, positive(require(j, at, "radius"), at + ".radius"), label);
    }
    if (type == "polygon") {
      if constexpr (D != 2) wrong_dim(2);
      else {
        only(j, at, {"type", "points", "holes"});
        std::vector<std::vector<Vec<2>>> rings;
        std::size_t vertices = 0;  // so far, in all rings
        rings.push_back(ring(require(j, at, "points"), at + ".points", vertices));
        if (j.contains("holes")) {
          const json& holes = j["holes"];
          if (!holes.is_array()) fail(at + ".holes", "expected an array of rings, got " + type_name(holes));
          for (std::size_t i = 0; i < holes.size(); ++i)
            rings.push_back(ring(holes[i], at + ".holes[" + std::to_string(i) + "]", vertices));
        }
        if (const auto x = geometry_detail::find_ring_crossing(rings))
          fail(at, "the polygon's rings cross or touch at (" + num(x->x()) + ", " + num(x->y()) +
                       "): the outline must not cross itself, nor a hole cross the outline or another hole");
        return make_polygon(std::move(rings), label);
      }
    }
    if (type == "mesh") {
      if constexpr (D != 3) wrong_dim(3);
      else {
        only(j, at, {"type", "file", "accelerate", "repair", "max_hole"});
        const std::string file = resolve(string(require(j, at, "file"), at + ".file"));
        MeshOptions options;
        if (j.contains("accelerate")) {
          if (!j["accelerate"].is_boolean()) fail(at + ".accelerate", "expected true or false, got " + type_name(j["accelerate"]));
          options.accelerate = j["accelerate"].get<bool>();
        }
        if (j.contains("repair")) {
          const std::string repair = string(j["repair"], at + ".repair");
          if (repair != "auto" && repair != "none") fail(at + ".repair", "expected \"auto\" or \"none\", got \"" + repair + "\"");
          options.repair = repair == "auto";
        }
        if (j.contains("max_hole")) {
          options.max_hole = number(j["max_hole"], at + ".max_hole");
          if (!(options.max_hole >= 0)) fail(at + ".max_hole", "must be 0 or more (a border length in the mesh's units)");
          if (!options.repair) fail(at + ".max_hole", "applies to \"repair\": \"auto\" only");
        }
        try {
          check_mesh_file(file);
        } catch (const InputFileError& e) {
          fail(at + ".file", describe_input_file_error("mesh", file, e));
        }
        try {
          std::vector<std::string> notes;
          ShapePtr<D> mesh = make_mesh(file, label, options, notes, meshes_);
          for (const std::string& note : notes) repairs_.push_back(label + ": " + note);
          return mesh;
        } catch (const std::bad_alloc&) {
          fail(at + ".file", "out of memory loading mesh " + file);
        } catch (const std::exception& e) {
          fail(at + ".file", e.what());
        }
      }
    }
    if (type == "union" || type == "intersection" || type == "difference") {
      only(j, at, {"type", "children"});
      const json& kids = require(j, at, "children");
      if (!kids.is_array()) fail(at + ".children", "expected an array of shapes, got " + type_name(kids));
      const std::size_t need = type == "difference" ? 2 : 1;
      if (kids.size() < need) fail(at + ".children", type + " needs at least " + std::to_string(need) + " children");
      std::vector<ShapePtr<D>> children;
      for (std::size_t i = 0; i < kids.size(); ++i)
        children.push_back(shape<D>(kids[i], at + ".children[" + std::to_string(i) + "]", depth + 1));
      const CsgOp op = type == "union" ? CsgOp::union_ : type == "intersection" ? CsgOp::intersection : CsgOp::difference;
      check_overlap_cost<D>(op, children, at);
      return make_csg<D>(op, std::move(children));
    }
    if (type == "translate" || type == "scale" || type == "rotate") return transform<D>(j, at, type, depth);
    fail(at + ".type", "unknown shape \"" + type +
                           "\" (known: box, ball, disk, sphere, polygon, mesh, union, intersection, difference, "
                           "translate, scale, rotate)");
  }

  template <int D>
  ShapePtr<D> transform(const json& j, const std::string& at, const std::string& type, int depth) const {
    Affine<D> t;
    if (type == "translate") {
      only(j, at, {"type", "offset", "child"});
      t.b = vec<D>(require(j, at, "offset"), at + ".offset");
    } else if (type == "scale") {
      only(j, at, {"type", "factor", "child"});
      const json& f = require(j, at, "factor");
      const Vec<D> s = f.is_array() ? vec<D>(f, at + ".factor") : Vec<D>::Constant(number(f, at + ".factor"));
      if (!(s.array() != 0.0).all()) fail(at + ".factor", "must be non-zero");
      t.A = s.asDiagonal();
    } else {
      only(j, at, {"type", "angle", "axis", "child"});
      const double a = number(require(j, at, "angle"), at + ".angle") * std::numbers::pi / 180.0;
      if constexpr (D == 2) {
        if (j.contains("axis")) fail(at + ".axis", "a 2D rotation has no axis (it turns about the origin)");
        t.A << std::cos(a), -std::sin(a), std::sin(a), std::cos(a);
      } else {
        // Scaled by its largest component first: the norm of [1e-300, 0, 0] underflows to 0.
        Vec<3> axis = vec<3>(require(j, at, "axis"), at + ".axis");
        const double largest = axis.cwiseAbs().maxCoeff();
        if (!(largest > 0)) fail(at + ".axis", "must be non-zero");
        axis /= largest;
        t.A = Eigen::AngleAxisd(a, axis.normalized()).toRotationMatrix();
      }
    }
    return make_transform<D>(t, shape<D>(require(j, at, "child"), at + ".child", depth + 1));
  }

  // A polygon's rings hold at most this many vertices in all: the exact check that they do not cross
  // (ring_crossings.hpp) takes memory in proportion to the vertices, and this bounds it (a point file
  // near its size limit holds 3e7 short "x y" lines, which took many gigabytes).
  static constexpr std::size_t kMaxPolygonVertices = 1'000'000;

  // A polygon ring: inline [[x,y],...] or the name of a text file with "x y" per line. `vertices`: the
  // polygon's vertices before this ring, and after it on return.
  std::vector<Vec<2>> ring(const json& j, const std::string& at, std::size_t& vertices) const {
    std::vector<Vec<2>> pts;
    auto count = [&](std::size_t more) {
      if (more > kMaxPolygonVertices - vertices)
        fail(at, "the polygon has more than " + std::to_string(kMaxPolygonVertices) +
                     " vertices, the limit (the exact check that its rings do not cross takes about 0.65 KB a "
                     "vertex): simplify the outline to the detail the spacing resolves");
      vertices += more;
    };
    if (j.is_string()) {
      const std::string file = resolve(j.get<std::string>());
      std::string text;
      try {
        text = read_input_file(file, InputFileLimits::kPointFileBytes, "point files");
      } catch (const InputFileError& e) {
        fail(at, describe_input_file_error("point file", file, e));
      }
      // As editors write them: a UTF-8 byte order mark first, lines ended by CR alone (classic Mac OS).
      if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
      if (text.find('\n') == std::string::npos) std::replace(text.begin(), text.end(), '\r', '\n');
      std::istringstream in(std::move(text));
      std::string line;
      for (long line_no = 1; std::getline(in, line); ++line_no) {
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        if (line.find_first_not_of(" \t\r,") == std::string::npos) continue;
        for (char& c : line)
          if (c == ',') c = ' ';
        std::istringstream row(line);
        double x, y;
        std::string rest;  // "1 1abc" and "0 0 0" are typos, not points: nothing may follow the pair
        if (!(row >> x >> y) || (row >> rest) || !std::isfinite(x) || !std::isfinite(y))
          fail(at, file + " line " + std::to_string(line_no) + ": expected two numbers \"x y\"");
        count(1);
        pts.emplace_back(x, y);
      }
    } else if (j.is_array()) {
      count(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) pts.push_back(vec<2>(j[i], at + "[" + std::to_string(i) + "]"));
    } else {
      fail(at, "expected an array of [x, y] points or a file name, got " + type_name(j));
    }
    // A point repeated next to itself (an outline file that closes the ring by repeating its first
    // point, a doubled vertex) is one vertex: zero-length edges have no direction for a normal.
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    while (pts.size() > 1 && pts.back() == pts.front()) pts.pop_back();
    if (pts.size() < 3) fail(at, "a polygon ring needs at least 3 distinct points, got " + std::to_string(pts.size()));
    return pts;
  }

 private:
  std::filesystem::path path_;
  int dim_;
  mutable std::vector<std::filesystem::path> inputs_;
  mutable std::vector<std::string> repairs_;
  mutable MeshCache meshes_;  // meshes loaded so far, shared by the leaves that name them again
};

// Spacing must be positive and finite wherever the fill may evaluate it, and must not ask for more
// nodes than the cap: both are checked on a grid over the bounding box plus random points. Returns the
// rough node count it estimated (DomainFile::expected_nodes).
template <int D>
double validate_spacing(const Loader& L, const Spacing& spacing, const Domain<D>& domain, const FillParams& fill,
                      bool cap_from_cli) {
  auto h = spacing.evaluator();
  const Box<D> box = domain.bounding_box();
  double h_min = std::numeric_limits<double>::infinity();
  Vec<D> h_min_at = box.lo;
  auto where = [](const Vec<D>& p) {
    std::string text;
    for (int i = 0; i < D; ++i) text += (i ? ", " : "") + num(p[i]);
    return text;
  };
  auto check = [&](const Vec<D>& p) {
    const double v = h(p);
    if (v < h_min) h_min = v, h_min_at = p;
    if (!std::isfinite(v) || !(v > 0) || v < kMinSpacing) {
      L.fail("spacing", "h = " + num(v) + " at (" + where(p) + ") is not " +
                            (v > 0 && std::isfinite(v) ? "at least " + num(kMinSpacing) + " (its square would underflow)"
                                                       : std::string("positive and finite")) +
                            " (\"" + spacing.brief() + "\", sampled over the bounding box)");
    }
    return v;
  };
  const int n = 64;
  const Vec<D> step = box.size() / n;
  double nodes = 0.0;
  const double cell_measure = step.prod();
  const long total = static_cast<long>(std::pow(n, D));
  std::vector<char> inside(static_cast<std::size_t>(total));
  std::vector<double> h_at(static_cast<std::size_t>(total));
  for (long k = 0; k < total; ++k) {
    long r = k;
    Vec<D> p;
    for (int i = 0; i < D; ++i) {
      p[i] = box.lo[i] + (static_cast<double>(r % n) + 0.5) * step[i];
      r /= n;
    }
    h_at[static_cast<std::size_t>(k)] = check(p);
    inside[static_cast<std::size_t>(k)] = domain.contains(p);
    if (inside[static_cast<std::size_t>(k)]) nodes += cell_measure / std::pow(h_at[static_cast<std::size_t>(k)], D);
  }
  // The boundary's nodes: its length (2D) or area (3D) over h^(d-1), the boundary taken as the faces
  // between inside cells of that grid and cells outside or beyond the box (a staircase, longer than a
  // curved boundary by up to 1.5 times). The interior estimate alone missed thin domains: a 1e9 x 1e-9
  // box at h = 1e-3 has 1e6 nodes' worth of area but 2e12 boundary nodes.
  double boundary_nodes = 0.0;
  for (long k = 0; k < total; ++k) {
    if (!inside[static_cast<std::size_t>(k)]) continue;
    long stride = 1;
    for (int i = 0; i < D; ++i, stride *= n) {
      const long at = (k / stride) % n;
      const double faces = (at == 0 || !inside[static_cast<std::size_t>(k - stride)]) +
                           (at == n - 1 || !inside[static_cast<std::size_t>(k + stride)]);
      if (faces > 0) boundary_nodes += faces * (cell_measure / step[i]) / std::pow(h_at[static_cast<std::size_t>(k)], D - 1);
    }
  }
  std::mt19937_64 rng(12345);
  for (int k = 0; k < 2000; ++k) {
    Vec<D> p;
    for (int i = 0; i < D; ++i) p[i] = std::uniform_real_distribution<double>(box.lo[i], box.hi[i])(rng);
    check(p);
  }
  for (int corner = 0; corner < (1 << D); ++corner) {
    Vec<D> p;
    for (int i = 0; i < D; ++i) p[i] = (corner >> i) & 1 ? box.hi[i] : box.lo[i];
    check(p);
  }
  // |x| / h bounds the extent / h too (the extent is at most twice the largest |x|).
  const double reach = box.reach();
  if (reach > kMaxCoordinateOverSpacing * h_min)
    L.fail("spacing", "h = " + num(h_min) + " at (" + where(h_min_at) + ") is below what double precision resolves at "
                          "coordinates as large as " + num(reach) + " (|x| / h must be at most " +
                          num(kMaxCoordinateOverSpacing) + "); move the domain nearer the origin or use a larger spacing");
  // measure / h^d is a rough count (the fill packs somewhat more; bench/RESULTS.md, Fill), and the
  // boundary's a staircase one, so only clearly hopeless spacings are refused here (at twice the cap,
  // above the staircase's overestimate); the fill enforces the exact cap.
  if (nodes + boundary_nodes > 2.0 * static_cast<double>(fill.max_nodes))
    L.fail("spacing", "would need about " + num(nodes + boundary_nodes) + " nodes (" + num(nodes) +
                          " inside: domain measure / h^" + std::to_string(D) + "; " + num(boundary_nodes) +
                          " on the boundary: its " + (D == 2 ? "length / h" : "area / h^2") +
                          "), far above " + (cap_from_cli ? "--max-nodes " : "fill.max_nodes = ") +
                          std::to_string(fill.max_nodes) + "; use a larger spacing or raise " +
                          (cap_from_cli ? "--max-nodes" : "fill.max_nodes"));
  // The fill's k-d tree keeps nodes on a grid of 2^32 steps over the box (spacing.hpp,
  // kMaxExtentOverSpacing). After the count: a domain too thin for its h is refused for its count.
  const double extent = box.size().maxCoeff();
  if (extent > kMaxExtentOverSpacing * h_min)
    L.fail("spacing", "h = " + num(h_min) + " at (" + where(h_min_at) + ") is finer than the fill resolves in a domain "
                          "whose box is " + num(extent) + " across (its extent / h must be at most " +
                          std::to_string(static_cast<long long>(kMaxExtentOverSpacing)) + "); use a larger spacing there");
  return nodes + boundary_nodes;
}

template <int D>
std::shared_ptr<const Domain<D>> build_domain(const Loader& L, const json& root) {
  ShapePtr<D> shape = L.shape<D>(L.require(root, "", "shape"), "shape");
  std::vector<std::string> names;
  shape->register_parts(names);
  const Box<D> box = shape->bounds();
  // Squared distances must stay finite: at 1e160 they overflowed to inf, no candidate was ever too
  // close, and the fill piled nodes onto the same points until it seemed to hang.
  if (box.reach() > kMaxCoordinate)
    L.fail("shape", "its bounding box reaches " + num(box.reach()) +
                        ", beyond the " + num(kMaxCoordinate) + " that squared distances allow; rescale the domain");
  if (box.empty() || !(box.volume() > 0)) L.fail("shape", "the shape is empty (its bounding box has no volume)");
  auto domain = std::make_shared<const Domain<D>>(std::move(shape), std::move(names));
  if (!(domain->measure() > 0)) L.fail("shape", "the shape is empty (no inside point found on grids over its box and its parts' boxes)");
  return domain;
}

// "line L, column C" of byte `at` of the text.
std::string line_column(const std::string& text, std::size_t at) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < std::min(at, text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// A key given twice in one object: JSON parsers keep the last one silently, which hid a typo's fix (or
// a stale value) and led to a confusing error elsewhere. Found by a SAX pass over the (valid) text: the
// parser callback that did this before re-scanned the enclosing array after every object, quadratic
// in the number of a CSG node's children.
class DuplicateKeys : public nlohmann::json_sax<json> {
 public:
  std::string first;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    open_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!open_.back().insert(k).second) first = k;
    return first.empty();  // stops at the first duplicate
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  std::vector<std::set<std::string>> open_;
};

std::string first_duplicate_key(const std::string& text) {
  DuplicateKeys keys;
  json::sax_parse(text, &keys);
  return keys.first;
}

// The byte where the text's arrays and objects first nest deeper than `limit`, or npos. Counts brackets
// outside strings; a malformed text is left to the parser.
std::size_t too_deep_at(const std::string& text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}

std::string syntax_reason(const json::parse_error& e) {
  std::string what = e.what();
  const auto colon = what.find(": ", what.find("column"));
  if (colon != std::string::npos) return what.substr(colon + 2);
  return what;
}

}  // namespace

DomainFile parse_domain_text(const std::string& text, const std::filesystem::path& path,
                             std::optional<std::size_t> max_nodes) {
  const std::string file = path.string();
  // Refused before parsing: the loader walks the shape tree recursively.
  if (const std::size_t deep = too_deep_at(text, kMaxJsonDepth); deep != std::string::npos)
    throw InputError(file, line_column(text, deep),
                     "arrays and objects are nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels (shape trees may be " + std::to_string(kMaxShapeDepth) + " deep)");
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // The byte where parsing stopped.
    throw InputError(file, line_column(text, e.byte == 0 ? 0 : e.byte - 1), "invalid JSON: " + syntax_reason(e));
  } catch (const json::out_of_range& e) {
    // A number beyond double's range (1e400): the library names the number but not where it is.
    const std::string what = e.what();
    const auto open = what.find('\''), close = what.rfind('\'');
    const std::string number = open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
    const std::size_t at = number.empty() ? std::string::npos : text.find(number);
    throw InputError(file, at == std::string::npos ? std::string("JSON") : line_column(text, at),
                     "invalid JSON: the number " + number + " is out of range (a double holds about 1.8e308 at most)");
  }
  if (const std::string duplicate = first_duplicate_key(text); !duplicate.empty())
    throw InputError(file, duplicate, "given twice in one object (JSON would keep only the last); remove one");
  if (!root.is_object()) throw InputError(file, "(top level)", "expected a JSON object, got " + type_name(root));

  Loader probe(path, 0);
  probe.only(root, "", {"dim", "spacing", "fill", "shape"});
  const json& dim_j = probe.require(root, "", "dim");
  // Compared as the 64-bit integer the JSON holds: get<int>() narrowed 4294967298 to 2.
  if (!dim_j.is_number_integer() || (dim_j.get<std::int64_t>() != 2 && dim_j.get<std::int64_t>() != 3))
    probe.fail("dim", "must be 2 or 3, got " + dim_j.dump());

  DomainFile out;
  out.path = path;
  out.text = text;
  out.dim = static_cast<int>(dim_j.get<std::int64_t>());
  Loader L(path, out.dim);
  if (root.contains("comment")) out.comment = L.string(root["comment"], "comment");

  const json& sp = L.require(root, "", "spacing");
  if (sp.is_number()) {
    const double h = sp.get<double>();
    if (!std::isfinite(h) || !(h > 0)) L.fail("spacing", "must be positive and finite, got " + sp.dump());
    out.spacing = Spacing::constant(h);
  } else if (sp.is_string()) {
    try {
      out.spacing = Spacing::expression(sp.get<std::string>());
    } catch (const std::invalid_argument& e) {
      L.fail("spacing", e.what());
    }
  } else {
    L.fail("spacing", "expected a number or an expression string in x, y, z, got " + type_name(sp));
  }

  out.fill = FillParams::defaults_for(out.dim);
  if (root.contains("fill")) {
    const json& f = root["fill"];
    if (!f.is_object()) L.fail("fill", "expected an object, got " + type_name(f));
    L.only(f, "fill", {"candidates", "seed", "max_nodes"});
    auto integer = [&](const char* key, long long lo) -> long long {
      const json& v = f[key];
      if (!v.is_number_integer()) L.fail(std::string("fill.") + key, "expected an integer, got " + v.dump());
      const long long x = v.is_number_unsigned() ? static_cast<long long>(std::min<std::uint64_t>(v.get<std::uint64_t>(), INT64_MAX)) : v.get<long long>();
      if (x < lo) L.fail(std::string("fill.") + key, "must be at least " + std::to_string(lo) + ", got " + v.dump());
      return x;
    };
    if (f.contains("candidates")) {
      const long long c = integer("candidates", 1);
      if (c > 10000) L.fail("fill.candidates", "must be at most 10000, got " + std::to_string(c));
      out.fill.candidates = static_cast<int>(c);
    }
    if (f.contains("seed")) {
      if (!f["seed"].is_number_unsigned() && !(f["seed"].is_number_integer() && f["seed"].get<long long>() >= 0))
        L.fail("fill.seed", "expected a non-negative integer, got " + f["seed"].dump());
      if (f["seed"].get<std::uint64_t>() > FillParams::kMaxSeed)
        L.fail("fill.seed", "must be at most " + std::to_string(FillParams::kMaxSeed) + ", got " + f["seed"].dump());
      out.fill.seed = f["seed"].get<std::uint64_t>();
    }
    if (f.contains("max_nodes")) {
      const long long cap = integer("max_nodes", 1);
      if (static_cast<std::uint64_t>(cap) > FillParams::kMaxNodeCap)
        L.fail("fill.max_nodes", "must be at most " + std::to_string(FillParams::kMaxNodeCap) +
                                     " (the output indexes nodes with int32), got " + f["max_nodes"].dump());
      out.fill.max_nodes = static_cast<std::size_t>(cap);
    }
  }

  if (max_nodes) out.fill.max_nodes = *max_nodes;
  if (out.dim == 2) {
    auto d = build_domain<2>(L, root);
    out.expected_nodes = validate_spacing<2>(L, out.spacing, *d, out.fill, max_nodes.has_value());
    out.domain = std::move(d);
  } else {
    auto d = build_domain<3>(L, root);
    out.expected_nodes = validate_spacing<3>(L, out.spacing, *d, out.fill, max_nodes.has_value());
    out.domain = std::move(d);
  }
  out.inputs = L.inputs();
  out.repairs = L.repairs();
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
