// nodegen._nodegen: the C++ library (nodegen.hpp) for Python, under the package python/nodegen, which
// checks the arguments and documents them. Arrays reach numpy without a copy: each is a view of the
// nodes' own memory whose base keeps the nodes alive. The GIL is released while a fill runs; a Python
// spacing function is called with it held, many points a call (BatchSpacing), and Ctrl-C ends the fill
// at its threads' next tile (Options::stop) as a KeyboardInterrupt.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nodegen/nodegen.hpp>

#include <atomic>
#include <csignal>
#include <cstring>
#include <string>
#include <variant>

namespace py = pybind11;

namespace {

// The nodes of either dimension, as one Python type (a struct: pybind11's own caster takes variants).
struct AnyNodes {
  std::variant<nodegen::Nodes<2>, nodegen::Nodes<3>> nodes;
  std::size_t index() const { return nodes.index(); }
};

// A numpy view of `count` rows of `width` values at `data`, kept alive by a copy of the nodes.
template <class T>
py::array view(const AnyNodes& nodes, const T* data, std::size_t count, std::size_t width, bool matrix) {
  auto* keep = new AnyNodes(nodes);
  py::capsule base(keep, [](void* p) { delete static_cast<AnyNodes*>(p); });
  static const T kNone{};
  const T* at = data != nullptr ? data : &kNone;  // numpy would allocate for a null pointer
  if (!matrix) return py::array_t<T>({count}, {sizeof(T)}, at, base);
  return py::array_t<T>({count, width}, {width * sizeof(T), sizeof(T)}, at, base);
}

template <int D>
constexpr std::size_t dim_of(const nodegen::Nodes<D>&) {
  return D;
}

template <class F>
auto visit(const AnyNodes& nodes, F&& f) {
  return std::visit(std::forward<F>(f), nodes.nodes);
}

// Ctrl-C during a fill: the handler only sets the flag the fill polls (Options::stop); the fill's
// threads stop at their next tile and discretize throws Stopped, raised here as KeyboardInterrupt.
std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true, std::memory_order_relaxed); }

class InterruptWatch {
 public:
  InterruptWatch() {
    interrupted.store(false);
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    installed_ = sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~InterruptWatch() {
    if (installed_) sigaction(SIGINT, &previous_, nullptr);
  }
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

[[noreturn]] void raise_interrupt() {
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw py::error_already_set();
}

// A Python function of an (n, D) array returning n values, as a spacing of many points a call. It is
// held by a borrowed pointer: the caller's arguments keep it alive for the call, and the library may
// copy and drop the wrapper on any thread, where a Python reference could not be released.
template <int D>
nodegen::BatchSpacing<D> python_spacing(const py::object& function) {
  PyObject* f = function.ptr();
  return {[f](std::span<const nodegen::Point<D>> x, std::span<double> out) {
    py::gil_scoped_acquire gil;
    py::array_t<double> points({x.size(), static_cast<std::size_t>(D)});
    if (!x.empty()) std::memcpy(points.mutable_data(), x.data()->data(), x.size() * D * sizeof(double));
    const py::object result = py::reinterpret_borrow<py::object>(f)(points);
    const auto values = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(result);
    if (!values || values.ndim() != 1 || static_cast<std::size_t>(values.shape(0)) != x.size())
      throw py::value_error("spacing: the function returned " +
                            std::string(values ? "an array of shape " + py::str(values.attr("shape")).cast<std::string>()
                                               : "a " + py::str(result.get_type().attr("__name__")).cast<std::string>()) +
                            " for " + std::to_string(x.size()) + " points; it must return one value a point, shape (" +
                            std::to_string(x.size()) + ",)");
    std::memcpy(out.data(), values.data(), x.size() * sizeof(double));
  }};
}

nodegen::Samples samples_of(int dim, const py::tuple& s) {
  nodegen::Samples samples;
  samples.dim = dim;
  const auto positions = s[1].cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
  const auto values = s[2].cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
  samples.positions.assign(positions.data(), positions.data() + positions.size());
  samples.values.assign(values.data(), values.data() + values.size());
  samples.scale = s[3].cast<double>();
  samples.min = s[4].cast<double>();
  samples.max = s[5].cast<double>();
  samples.grading = s[6].cast<double>();
  return samples;
}

// spacing: a tuple (kind, ...) the package made: ("file",), ("constant", h), ("expression", text),
// ("samples", positions, values, scale, min, max, grading), ("function", f).
template <int D>
AnyNodes fill(const nodegen::DomainSpec& domain, const py::tuple& spacing, const nodegen::Options& options) {
  const std::string kind = spacing[0].cast<std::string>();
  if (kind == "constant") {
    const double h = spacing[1].cast<double>();
    py::gil_scoped_release free;
    return {nodegen::discretize<D>(domain, h, options)};
  }
  if (kind == "expression") {
    const std::string text = spacing[1].cast<std::string>();
    py::gil_scoped_release free;
    return {nodegen::discretize<D>(domain, text, options)};
  }
  if (kind == "samples") {
    const nodegen::Samples samples = samples_of(D, spacing);
    py::gil_scoped_release free;
    return {nodegen::discretize<D>(domain, samples, options)};
  }
  if (kind == "function") {
    nodegen::BatchSpacing<D> h = python_spacing<D>(spacing[1]);
    py::gil_scoped_release free;
    return {nodegen::discretize<D>(domain, std::move(h), options)};
  }
  py::gil_scoped_release free;
  return {nodegen::discretize<D>(domain, options)};
}

AnyNodes discretize(const nodegen::DomainSpec& domain, const py::tuple& spacing, nodegen::Options options) {
  InterruptWatch watch;
  options.stop = &interrupted;
  try {
    AnyNodes out = domain.dim() == 2 ? fill<2>(domain, spacing, options) : fill<3>(domain, spacing, options);
    if (interrupted.load()) raise_interrupt();  // pressed as the fill ended: still the user's wish
    return out;
  } catch (const nodegen::Stopped&) {
    raise_interrupt();
  }
}

void bind_nodes(py::module_& m) {
  py::class_<AnyNodes>(m, "Nodes")
      .def_property_readonly("dim", [](const AnyNodes& n) { return n.index() == 0 ? 2 : 3; })
      .def("__len__", [](const AnyNodes& n) { return visit(n, [](const auto& d) { return d.size(); }); })
      .def_property_readonly("boundary_count", [](const AnyNodes& n) { return visit(n, [](const auto& d) { return d.boundary_count(); }); })
      .def_property_readonly("positions", [](const AnyNodes& n) {
        return visit(n, [&](const auto& d) {
          return view<double>(n, d.positions().empty() ? nullptr : d.positions().data()->data(), d.size(), dim_of(d), true);
        });
      })
      .def_property_readonly("boundary_normals", [](const AnyNodes& n) {
        return visit(n, [&](const auto& d) {
          const auto normals = d.boundary_normals();
          return view<double>(n, normals.empty() ? nullptr : normals.data()->data(), normals.size(), dim_of(d), true);
        });
      })
      .def_property_readonly("types", [](const AnyNodes& n) {
        return visit(n, [&](const auto& d) { return view<std::int32_t>(n, d.types().data(), d.size(), 1, false); });
      })
      .def_property_readonly("bmap", [](const AnyNodes& n) {
        return visit(n, [&](const auto& d) { return view<std::int32_t>(n, d.bmap().data(), d.size(), 1, false); });
      })
      .def_property_readonly("h", [](const AnyNodes& n) {
        return visit(n, [&](const auto& d) { return view<double>(n, d.h().data(), d.h().size(), 1, false); });
      })
      .def_property_readonly("supports", [](const AnyNodes& n) {
        return visit(n, [&](const auto& d) {
          const auto k = static_cast<std::size_t>(d.support_size());
          return view<std::int64_t>(n, d.supports().data(), k ? d.size() : 0, k, true);
        });
      })
      .def_property_readonly("part_names", [](const AnyNodes& n) { return visit(n, [](const auto& d) { return d.part_names(); }); })
      .def_property_readonly("spacing_factor", [](const AnyNodes& n) { return visit(n, [](const auto& d) { return d.spacing_factor(); }); })
      .def_property_readonly("fill_seconds", [](const AnyNodes& n) { return visit(n, [](const auto& d) { return d.fill_seconds(); }); })
      .def_property_readonly("nodes_sha256", [](const AnyNodes& n) {
        py::gil_scoped_release free;
        return visit(n, [](const auto& d) { return d.nodes_sha256(); });
      })
      .def("stats_json", [](const AnyNodes& n) {
        py::gil_scoped_release free;
        return visit(n, [](const auto& d) { return d.stats_json(); });
      })
      .def("write", [](const AnyNodes& n, const std::string& path) {
        py::gil_scoped_release free;
        visit(n, [&](const auto& d) { d.write(path); });
      });
}

}  // namespace

PYBIND11_MODULE(_nodegen, m) {
  m.doc() = "The compiled half of the nodegen package; use `import nodegen`.";
  py::register_exception<nodegen::Error>(m, "Error", PyExc_ValueError);

  py::class_<nodegen::DomainSpec>(m, "Domain")
      .def_property_readonly("dim", &nodegen::DomainSpec::dim)
      .def_property_readonly("part_names", &nodegen::DomainSpec::part_names)
      .def_property_readonly("spacing", &nodegen::DomainSpec::spacing)
      .def_property_readonly("path", [](const nodegen::DomainSpec& d) { return d.path().string(); });
  m.def("load_domain", [](const std::string& path) {
    py::gil_scoped_release free;
    return nodegen::load_domain(path);
  });
  m.def("parse_domain", [](const std::string& text, const std::string& path) {
    py::gil_scoped_release free;
    return nodegen::parse_domain(text, path);
  });

  py::class_<nodegen::Options>(m, "Options")
      .def(py::init<>())
      .def_readwrite("threads", &nodegen::Options::threads)
      .def_readwrite("seed", &nodegen::Options::seed)
      .def_readwrite("nodes", &nodegen::Options::nodes)
      .def_readwrite("max_nodes", &nodegen::Options::max_nodes)
      .def_readwrite("supports", &nodegen::Options::supports)
      .def_readwrite("boundary_only", &nodegen::Options::boundary_only)
      .def_readwrite("backend", &nodegen::Options::backend);

  bind_nodes(m);
  m.def("discretize", &discretize);
  m.def("read", [](const std::string& path) -> AnyNodes {
    py::gil_scoped_release free;
    return AnyNodes{nodegen::read_any_nodes(path)};
  });
}
