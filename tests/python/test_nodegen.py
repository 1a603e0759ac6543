"""The Python module (python/nodegen): arrays and their conventions, the command's nodes, determinism at
any thread count with a Python spacing function, dict domains, write/read, supports against brute force,
errors as exceptions, Ctrl-C, boundary nodes alone. Run by ctest (test_python) with PYTHONPATH at the build's python/."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import nodegen

ROOT = pathlib.Path(os.environ.get("NODEGEN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DOMAINS = ROOT / "domains"


def golden(example):
    return json.loads((ROOT / "tests/data/example_fingerprints.json").read_text())[example]


def holed_square(spacing=0.04):
    return {"dim": 2, "spacing": spacing, "shape": {"type": "difference", "children": [
        {"type": "box", "min": [0, 0], "max": [1, 1]},
        {"type": "ball", "name": "hole", "center": [0.5, 0.5], "radius": 0.2}]}}


def test_the_example_domains_give_the_commands_nodes():
    assert nodegen.discretize(DOMAINS / "square.json").nodes_sha256 == golden("square")
    assert nodegen.discretize(str(DOMAINS / "cube.json"), threads=2).nodes_sha256 == golden("cube")


def test_arrays_have_their_shapes_types_and_conventions():
    d = nodegen.discretize(holed_square(), supports=6)
    n = len(d)
    assert d.dim == 2 and n > 500
    assert d.positions.shape == (n, 2) and d.positions.dtype == np.float64
    assert d.types.shape == (n,) and d.types.dtype == np.int32
    assert d.normals.shape == (n, 2) and d.h.shape == (n,) and d.boundary.dtype == bool
    assert d.supports.shape == (n, 6) and d.supports.dtype == np.int64
    assert np.array_equal(d.boundary, d.types < 0)
    lengths = np.linalg.norm(d.normals, axis=1)
    assert np.allclose(lengths[d.boundary], 1.0) and np.all(lengths[~d.boundary] == 0.0)
    assert d.part_names[-1] == "hole:surface"
    hole = d.types == -len(d.part_names)
    inward = np.einsum("ij,ij->i", d.normals[hole], np.array([0.5, 0.5]) - d.positions[hole])
    assert hole.any() and np.all(inward > 0)  # the hole's outward normals point into the hole
    assert np.all(d.h == 0.04)
    assert np.array_equal(d.supports[:, 0], np.arange(n))


def test_arrays_are_read_only_views_without_a_copy():
    d = nodegen.discretize(holed_square())
    a, b = d.positions, d.positions
    assert np.shares_memory(a, b) and not a.flags.owndata
    with pytest.raises(ValueError):
        a[0, 0] = 1.0
    del d
    assert np.isfinite(a).all()  # the view keeps the nodes alive


def test_a_python_function_gives_the_same_nodes_at_any_thread_count():
    calls = []

    def h(x):
        calls.append(len(x))
        return 0.008 + 0.04 * np.linalg.norm(x, axis=1)

    runs = [nodegen.discretize(holed_square(), spacing=h, threads=t) for t in (1, 2, 7)]
    assert len({r.nodes_sha256 for r in runs}) == 1
    assert np.allclose(runs[0].h, 0.008 + 0.04 * np.linalg.norm(runs[0].positions, axis=1))
    expression = nodegen.discretize(holed_square(), spacing="0.008 + 0.04 * sqrt(x^2 + y^2)", threads=2)
    assert len(expression) == len(runs[0])
    assert max(calls) > 1  # many points a call


def test_spacing_arguments():
    constant = nodegen.discretize(holed_square(1.0), spacing=0.03)
    assert constant.nodes_sha256 == nodegen.discretize(holed_square(0.03)).nodes_sha256
    graded = nodegen.discretize(holed_square(1.0), spacing='0.01 + 0.05 * dist("hole")')
    assert len(graded) > len(constant)
    pts = np.array([[x, y] for x in (0, 0.5, 1) for y in (0, 0.5, 1)], dtype=float)
    sampled = nodegen.discretize(holed_square(1.0), spacing=nodegen.Samples(pts, np.where(pts[:, 0] < 0.25, 0.01, 0.05)))
    left = (sampled.positions[:, 0] < 0.25).sum()
    right = (sampled.positions[:, 0] > 0.75).sum()
    assert left > 4 * right


def test_a_node_target_lands_within_two_percent():
    d = nodegen.discretize(holed_square("0.01 + 0.02 * x"), nodes=4000)
    assert abs(len(d) - 4000) <= 80 and d.spacing_factor != 1.0


def test_supports_are_the_nearest_nodes_itself_first():
    d = nodegen.discretize(holed_square(0.05), supports=9, threads=3)
    p = d.positions
    d2 = ((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2)
    expected = np.array([sorted(range(len(p)), key=lambda j: (d2[i, j], j))[:9] for i in range(len(p))])
    assert np.array_equal(d.supports, expected)


def test_boundary_only_gives_the_whole_fills_boundary_rows():
    whole = nodegen.discretize(holed_square(), threads=2)
    for threads in (1, 2, 7):
        surface = nodegen.discretize(holed_square(), threads=threads, boundary_only=True)
        n = int(whole.boundary.sum())
        assert surface.positions.shape == (n, 2) and surface.boundary.all()
        assert np.array_equal(surface.positions, whole.positions[:n])
        assert np.array_equal(surface.normals, whole.normals[:n])
        assert surface.part_names == whole.part_names
    with pytest.raises(TypeError, match="boundary_only"):
        nodegen.discretize(holed_square(), boundary_only="yes")
    with pytest.raises(nodegen.Error, match="nodes"):
        nodegen.discretize(holed_square(), boundary_only=True, nodes=1000)


def test_written_nodes_read_back_the_same(tmp_path):
    d = nodegen.discretize(DOMAINS / "cube.json", spacing=0.1, supports=5)
    d.write(tmp_path / "cube.h5")
    assert (tmp_path / "cube.xdmf").exists()
    back = nodegen.read(tmp_path / "cube.h5")
    assert back.nodes_sha256 == d.nodes_sha256 and back.part_names == d.part_names
    assert np.array_equal(back.positions, d.positions) and np.array_equal(back.normals, d.normals)
    assert np.array_equal(back.supports, d.supports) and back.supports.shape == (len(d), 5)


def test_bad_input_raises_one_line_naming_the_field():
    with pytest.raises(nodegen.Error, match=r"^\(domain dict\): spacing: "):
        nodegen.discretize(holed_square(), spacing=-0.1)
    with pytest.raises(ValueError, match=r"spacing: "):
        nodegen.discretize(holed_square(), spacing="0.1 + y*")
    with pytest.raises(nodegen.Error, match=r"dim: must be 2 or 3"):
        nodegen.discretize({"dim": 4})
    with pytest.raises(nodegen.Error, match=r"no/such\.json"):
        nodegen.discretize("no/such.json")
    with pytest.raises(nodegen.Error, match=r"fill.nodes: "):
        nodegen.discretize(holed_square(), nodes=1000, max_nodes=1000)
    with pytest.raises(nodegen.Error, match=r"backend: "):
        nodegen.discretize(holed_square(), backend="disk")
    with pytest.raises(TypeError, match=r"^threads: "):
        nodegen.discretize(holed_square(), threads=1.5)
    with pytest.raises(ValueError, match=r"^supports: "):
        nodegen.discretize(holed_square(), supports=-1)
    with pytest.raises(TypeError, match=r"^spacing: "):
        nodegen.discretize(holed_square(), spacing=[0.1])
    with pytest.raises(TypeError, match=r"^domain: "):
        nodegen.discretize(42)
    with pytest.raises(TypeError, match=r"^path: expected a path \(str or os.PathLike\), got int"):
        nodegen.read(5)
    with pytest.raises(TypeError, match=r"^Samples: values: expected real numbers, got complex128"):
        nodegen.Samples(np.zeros((3, 2)), np.full(3, 0.05 + 1j))
    for argument in ("threads", "seed", "nodes", "max_nodes", "supports"):  # beyond the C++ types: pybind11's 4 lines
        with pytest.raises(ValueError, match=rf"^{argument}: must be at most "):
            nodegen.discretize(holed_square(), **{argument: 2**64})


def test_a_spacing_functions_errors_reach_the_caller():
    class Mine(Exception):
        pass

    def raising(x):
        if (x[:, 0] > 0.9).any():
            raise Mine("too far right")
        return np.full(len(x), 0.05)

    with pytest.raises(Mine, match="too far right"):
        nodegen.discretize(holed_square(), spacing=raising, threads=3)
    with pytest.raises(ValueError, match=r"returned an array of shape \(\d+, 2\)"):
        nodegen.discretize(holed_square(), spacing=lambda x: x)
    with pytest.raises(ValueError, match=r"spacing: .*not positive"):
        nodegen.discretize(holed_square(), spacing=lambda x: -np.ones(len(x)))


def test_a_spacing_function_may_run_a_fill_of_its_own():
    # Its fill starts inside the outer fill's team, where OpenMP gave it one thread of the two asked.
    inner = nodegen.discretize(holed_square(0.05), threads=2)

    def spacing(x):
        assert nodegen.discretize(holed_square(0.05), threads=2).nodes_sha256 == inner.nodes_sha256
        return np.full(len(x), 0.05)

    assert nodegen.discretize(holed_square(), spacing=spacing, threads=2).nodes_sha256 == \
        nodegen.discretize(holed_square(), spacing=0.05, threads=2).nodes_sha256


def test_ctrl_c_stops_a_fill():
    script = ("import nodegen, sys\n"
              "try:\n"
              f"    nodegen.discretize({str(DOMAINS / 'cube.json')!r}, spacing=0.004, threads=1)\n"
              "except KeyboardInterrupt:\n"
              "    sys.exit(42)\n")
    child = subprocess.Popen([sys.executable, "-c", script], env=os.environ.copy())
    time.sleep(1.5)
    start = time.monotonic()
    child.send_signal(signal.SIGINT)
    assert child.wait(timeout=60) == 42
    assert time.monotonic() - start < 10


def test_help_explains_every_argument():
    doc = nodegen.discretize.__doc__
    for argument in ("domain", "spacing", "seed", "threads", "nodes", "supports", "max_nodes", "backend"):
        assert f"\n    {argument} " in doc


def test_stats_gives_the_commands_figures(tmp_path):
    d = nodegen.discretize(holed_square(0.03))
    s = nodegen.stats(d)
    assert s["nodes"] == len(d) and s["nodes_sha256"] == d.nodes_sha256
    assert 0.99 < s["nn_over_h"]["min"] <= 1.0 and 0.5 < s["packing_density"] < 0.91
    assert [p["name"] for p in s["parts"]] == d.part_names and s["warnings"] == []
    d.write(tmp_path / "d.h5")
    cli = pathlib.Path(os.environ.get("NODEGEN_CLI", ROOT / "build/release/nodegen"))
    if cli.exists():
        printed = json.loads(subprocess.run([cli, "stats", "--json", tmp_path / "d.h5"], capture_output=True,
                                            text=True, check=True).stdout)
        assert printed["nn_over_h"] == s["nn_over_h"] and printed["packing_density"] == s["packing_density"]
    with pytest.raises(TypeError):
        nodegen.stats("d.h5")


def test_the_adaptive_example_refines_in_process():
    done = subprocess.run([sys.executable, ROOT / "examples/python/adaptive.py", "--rounds", "3"],
                          capture_output=True, text=True, env=os.environ.copy())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the max error fell in every round" in done.stdout
