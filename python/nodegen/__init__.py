"""nodegen: scattered nodes for meshless methods (RBF-FD and friends), in-process.

    import nodegen
    d = nodegen.discretize("part.json")                        # the domain file's spacing
    d = nodegen.discretize("part.json", spacing=0.01, supports=15)
    d.positions, d.types, d.normals, d.h, d.part_names, d.supports   # numpy arrays, lists
    d.write("part.h5")                                          # what `nodegen run -o part.h5` writes

The nodes are the command's: the same domain, spacing and seed give the same bytes (nodes_sha256) at
any thread count. Errors in the input raise nodegen.Error (a ValueError) with the command's one line,
"FILE: FIELD: REASON"; Ctrl-C stops a fill as KeyboardInterrupt.
"""
import json
import math
import numbers
import os

import numpy as np

from . import _nodegen

__all__ = ["Discretization", "Error", "Samples", "discretize", "read", "stats"]

Error = _nodegen.Error


class Samples:
    """A spacing interpolated from values at scattered points (docs/domain-format.md, "Spacing from
    samples"): linear over the points' Delaunay triangulation, inverse-distance weighted outside it.

    points   (n, dim) float array of positions
    values   (n,) positive h at each
    scale    multiplies every value (1.0)
    min, max each value is then clamped to [min, max] (0.0, inf)
    grading  > 0: h grows by at most this per unit of distance from the samples (0.0: as given)
    """

    def __init__(self, points, values, scale=1.0, min=0.0, max=math.inf, grading=0.0):
        self.points = _real_array(points, "points")
        self.values = _real_array(values, "values")
        if self.points.ndim != 2 or self.points.shape[1] not in (2, 3):
            raise ValueError(f"Samples: points must be an (n, 2) or (n, 3) array, got shape {self.points.shape}")
        if self.values.shape != (self.points.shape[0],):
            raise ValueError(f"Samples: values must have shape ({self.points.shape[0]},) for "
                             f"{self.points.shape[0]} points, got {self.values.shape}")
        self.scale, self.min, self.max, self.grading = (_number(v, name) for v, name in
                                                         ((scale, "scale"), (min, "min"), (max, "max"),
                                                          (grading, "grading")))

    def __repr__(self):
        return f"Samples({self.points.shape[0]} points in {self.points.shape[1]}D)"


class Discretization:
    """The nodes of one domain, in Medusa's conventions: boundary nodes first, then interior ones.

    positions       (N, dim) float64
    types           (N,) int32: > 0 inside, -k on boundary part k (part_names[k - 1])
    boundary        (N,) bool: types < 0
    normals         (N, dim) float64 outward unit normals, zero rows for interior nodes
    h               (N,) float64 the spacing at every node
    part_names      list of str; boundary id k is part_names[k - 1]
    supports        (N, k) int64: the k nearest nodes of each node, itself first (discretize(supports=k));
                    shape (0, 0) when none were asked for
    bmap, boundary_normals   Medusa's: a boundary node's row in boundary_normals ((B, dim)), -1 inside
    nodes_sha256    the fingerprint `nodegen run` prints
    spacing_factor  the factor the spacing was scaled by to meet nodes=N (1.0 without)

    The arrays are read-only views of the nodes' memory (no copy); copy one to change it.
    """

    def __init__(self, nodes):
        self._nodes = nodes
        self._normals = None

    def __len__(self):
        return len(self._nodes)

    def __repr__(self):
        return (f"Discretization({len(self)} nodes in {self.dim}D, {self._nodes.boundary_count} on the boundary, "
                f"{len(self.part_names)} parts)")

    @property
    def dim(self):
        return self._nodes.dim

    @property
    def positions(self):
        return _read_only(self._nodes.positions)

    @property
    def types(self):
        return _read_only(self._nodes.types)

    @property
    def bmap(self):
        return _read_only(self._nodes.bmap)

    @property
    def boundary(self):
        return self._nodes.types < 0

    @property
    def boundary_normals(self):
        return _read_only(self._nodes.boundary_normals)

    @property
    def normals(self):
        if self._normals is None:
            normals = np.zeros((len(self), self.dim))
            bmap = self._nodes.bmap
            on = bmap >= 0
            normals[on] = self._nodes.boundary_normals[bmap[on]]
            self._normals = _read_only(normals)
        return self._normals

    @property
    def h(self):
        return _read_only(self._nodes.h)

    @property
    def supports(self):
        s = self._nodes.supports
        return _read_only(s if s.ndim == 2 else s.reshape(0, 0))

    @property
    def part_names(self):
        return list(self._nodes.part_names)

    @property
    def nodes_sha256(self):
        return self._nodes.nodes_sha256

    @property
    def spacing_factor(self):
        return self._nodes.spacing_factor

    @property
    def fill_seconds(self):
        return self._nodes.fill_seconds

    def write(self, path):
        """Writes PATH (HDF5 in Medusa's layout, as `nodegen run -o PATH` does) and the .xdmf beside it
        for ParaView; both appear complete or not at all."""
        self._nodes.write(os.fspath(_path(path, "path")))


def discretize(domain, spacing=None, *, seed=None, threads=None, nodes=None, supports=0, max_nodes=None,
               backend="vm", boundary_only=False):
    """Fills a domain with nodes and returns a Discretization.

    domain     a domain file's path (str or os.PathLike), or a dict with the domain file's fields
               (docs/domain-format.md); relative paths in a dict resolve against the working folder
    spacing    None: the domain's own; a number (constant h); a str (an expression in x, y, z and
               dist("PART"), as the file's "spacing"); nodegen.Samples; or a function f(x) of an
               (n, dim) float64 array returning n positive values, called many points a call from the
               fill's threads with the GIL held: it must depend on each point alone
    seed       random seed of the placement (None: the file's fill.seed, 1 by default)
    threads    worker threads (None: one per core this process may use); the nodes do not depend on it
    nodes      a node count to land within 2 % of, by scaling the spacing (None: the spacing as it is)
    supports   k: also find the k nearest nodes of every node, itself first (0: none)
    max_nodes  the node cap (None: the file's fill.max_nodes, 1e8 by default)
    backend    the node store: "vm" (default), "vector" or "suballoc"
    boundary_only  True: the boundary nodes and their normals alone, no interior (PDEs on surfaces)

    Raises nodegen.Error (a ValueError) naming the file, the field and the reason for bad input,
    TypeError for arguments of the wrong type, KeyboardInterrupt when Ctrl-C stops the fill.
    """
    spec = _domain(domain)
    options = _nodegen.Options()
    options.threads = 0 if threads is None else _count(threads, "threads", least=1, most=_INT_MAX)
    if seed is not None:
        options.seed = _count(seed, "seed", least=0, most=_UINT64_MAX)
    if nodes is not None:
        options.nodes = _count(nodes, "nodes", least=1, most=_UINT64_MAX)
    if max_nodes is not None:
        options.max_nodes = _count(max_nodes, "max_nodes", least=1, most=_UINT64_MAX)
    options.supports = _count(supports, "supports", least=0, most=_INT_MAX)
    if not isinstance(backend, str):
        raise TypeError(f"backend: expected 'vm', 'vector' or 'suballoc', got {type(backend).__name__}")
    options.backend = backend
    if not isinstance(boundary_only, bool):
        raise TypeError(f"boundary_only: expected True or False, got {type(boundary_only).__name__}")
    options.boundary_only = boundary_only
    return Discretization(_nodegen.discretize(spec, _spacing(spacing, spec.dim), options))


def read(path):
    """Reads an output file (`nodegen run`'s, Discretization.write's, or Medusa's) as a Discretization."""
    return Discretization(_nodegen.read(os.fspath(_path(path, "path"))))


def stats(d):
    """The figures `nodegen stats --json` prints for a Discretization, as a dict: nodes, boundary_nodes,
    interior_nodes, nn_over_h {min, mean, max}, packing_density, measure, holes {mean, p999, max,
    samples, drawn}, parts [{id, name, nodes}], nodes_sha256, and warnings (why a figure is None)."""
    if not isinstance(d, Discretization):
        raise TypeError(f"stats: expected a nodegen.Discretization, got {type(d).__name__}")
    return json.loads(d._nodes.stats_json())


def _domain(domain):
    if isinstance(domain, dict):
        try:
            text = json.dumps(domain)
        except (TypeError, ValueError) as e:
            raise TypeError(f"domain: the dict is not JSON: {e}") from None
        return _nodegen.parse_domain(text, "(domain dict)")
    return _nodegen.load_domain(os.fspath(_path(domain, "domain", also=" or a dict")))


def _spacing(spacing, dim):
    if spacing is None:
        return ("file",)
    if isinstance(spacing, bool):
        raise TypeError("spacing: expected a number, an expression, nodegen.Samples or a function, got bool")
    if isinstance(spacing, numbers.Real):
        return ("constant", float(spacing))
    if isinstance(spacing, str):
        return ("expression", spacing)
    if isinstance(spacing, Samples):
        if spacing.points.shape[1] != dim:
            raise ValueError(f"spacing: the samples are {spacing.points.shape[1]}D, the domain {dim}D")
        return ("samples", spacing.points, spacing.values, spacing.scale, spacing.min, spacing.max, spacing.grading)
    if callable(spacing):
        return ("function", spacing)
    raise TypeError("spacing: expected a number, an expression (str), nodegen.Samples or a function of an "
                    f"(n, dim) array, got {type(spacing).__name__}")


def _path(value, name, also=""):
    if isinstance(value, (str, os.PathLike)):
        return value
    raise TypeError(f"{name}: expected a path (str or os.PathLike){also}, got {type(value).__name__}")


# The C++ options' own ranges: beyond them the library's checks (which name the field's real limits)
# could not even be reached.
_INT_MAX = 2**31 - 1
_UINT64_MAX = 2**64 - 1


def _count(value, name, least, most):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    if value < least:
        raise ValueError(f"{name}: must be at least {least}, got {value}")
    if value > most:
        raise ValueError(f"{name}: must be at most {most}, got {value}")
    return int(value)


def _real_array(value, name):
    """A float64 copy of real numbers; complex ones are refused (numpy would drop their imaginary parts
    with a warning)."""
    array = np.asarray(value)
    if np.iscomplexobj(array):
        raise TypeError(f"Samples: {name}: expected real numbers, got {array.dtype}")
    try:
        return np.ascontiguousarray(array, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Samples: {name}: expected an array of numbers ({e})") from None


def _number(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"Samples: {name}: expected a number, got {type(value).__name__}")
    return float(value)


def _read_only(array):
    array.flags.writeable = False
    return array
