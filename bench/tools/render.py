"""Renders a nodegen output to a PNG with ParaView, offscreen.

    bench/tools/render output/square.h5 -o square.png [--color type|h] [--normals] [--clip auto|none|x|y|z]
                                  [--size 800x800] [--point-size PX]

bench/tools/render runs this script as `xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" pvbatch bench/tools/render.py ...`
(without -noreset, Xvfb's reset after pvbatch's first connection sometimes breaks the render window).
FILE may be the .h5 or its .xdmf sidecar (same stem): ParaView reads the nodes through the XDMF, the way
a user opens them in the GUI, so this script also checks that the sidecar describes the HDF5 file.
Points are coloured by node type (interior, and one colour per boundary id) or by the spacing h;
--normals adds the boundary normals as arrows. 3D outputs are clipped through the centre, across the
thinnest side of the bounding box by default, so the interior nodes show and not only the outer shell.
"""
import argparse
import math
import os
import sys

from paraview import simple as pv


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="render.py", description=__doc__.splitlines()[0])
    parser.add_argument("file", help="nodegen output: FILE.h5 or FILE.xdmf")
    parser.add_argument("-o", "--output", required=True, help="PNG to write")
    parser.add_argument("--color", choices=("type", "h"), default="type", help="point colouring (default: type)")
    parser.add_argument("--normals", action="store_true", help="draw boundary normals as arrows")
    parser.add_argument("--clip", choices=("auto", "none", "x", "y", "z"), default="auto",
                        help="clip plane normal for 3D outputs (auto: across the thinnest side of the bounding box in 3D, "
                             "none in 2D)")
    parser.add_argument("--size", default="800x800", help="image size WIDTHxHEIGHT in pixels (default 800x800)")
    parser.add_argument("--point-size", type=float, default=0.0,
                        help="point size in pixels (default: from the median spacing and the image size)")
    return parser.parse_args(argv)


def xdmf_path_for(path):
    """The sidecar of FILE.h5 is FILE.xdmf; an .xdmf given directly is used as it is."""
    stem, ext = os.path.splitext(path)
    if ext.lower() in (".xdmf", ".xmf"):
        return path
    for candidate in (stem + ".xdmf", stem + ".xmf"):
        if os.path.exists(candidate):
            return candidate
    sys.exit("render.py: error: no XDMF sidecar next to %s (expected %s.xdmf)" % (path, stem))


def open_nodes(xdmf):
    # The legacy "XDMF Reader" first: ParaView 5.11's Xdmf3 readers crash on some Polyvertex grids.
    for reader, file_property in (("XDMFReader", {"FileNames": [xdmf]}), ("Xdmf3ReaderS", {"FileName": xdmf})):
        if hasattr(pv, reader):
            source = getattr(pv, reader)(**file_property)
            source.UpdatePipeline()
            if source.GetDataInformation().GetNumberOfPoints() > 0:
                return source
    sys.exit("render.py: error: ParaView read no points from %s" % xdmf)


def point_array_range(source, name):
    array = source.PointData[name] if name in source.PointData.keys() else None
    if array is None:
        sys.exit("render.py: error: the output has no point array '%s' (has: %s)"
                 % (name, ", ".join(source.PointData.keys())))
    return array.GetRange(0)


def geometry_of(source):
    """Bounds and dimension (2 when the z extent is zero)."""
    bounds = source.GetDataInformation().GetBounds()
    sides = [bounds[2 * i + 1] - bounds[2 * i] for i in range(3)]
    dim = 3 if sides[2] > 1e-12 * max(max(sides), 1e-300) else 2
    return bounds, dim


def default_point_size(view, h_range, minimum):
    """About half the node spacing on screen, so neighbouring points stay apart (clamped to
    minimum..12 px).
    h_typical is the geometric mean of the smallest and largest h: graded spacings span decades."""
    camera = view.GetActiveCamera()
    if view.CameraParallelProjection:
        visible_height = 2.0 * camera.GetParallelScale()
    else:   # at the focal point; the nearer half of a 3D view shows a little larger
        visible_height = 2.0 * camera.GetDistance() * math.tan(math.radians(camera.GetViewAngle() / 2.0))
    pixels_per_unit = view.ViewSize[1] / visible_height
    h_typical = math.sqrt(max(h_range[0], 1e-300) * max(h_range[1], 1e-300))
    return max(minimum, min(12.0, 0.5 * h_typical * pixels_per_unit))


def clipped(source, axis, bounds):
    normal = {"x": [1.0, 0.0, 0.0], "y": [0.0, 1.0, 0.0], "z": [0.0, 0.0, 1.0]}[axis]
    centre = [0.5 * (bounds[2 * i] + bounds[2 * i + 1]) for i in range(3)]
    clip = pv.Clip(Input=source)
    clip.ClipType = "Plane"
    clip.ClipType.Origin = centre
    clip.ClipType.Normal = normal
    clip.Invert = 1          # keep the half below the plane: the cut face looks along +normal
    clip.Crinkleclip = 1     # vertex cells are kept or dropped whole
    clip.UpdatePipeline()
    return clip


def show_legend(display, view, lut, title):
    display.SetScalarBarVisibility(view, True)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = title
    bar.ComponentTitle = ""
    bar.HorizontalTitle = 1
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]   # the default white text vanishes on the white background
    bar.WindowLocation = "Any Location"
    bar.Position = [0.82, 0.05]
    bar.RangeLabelFormat = "%.3g"


def colour_by_type(display, view, type_range):
    """Categorical colours: interior nodes (type > 0) grey, boundary ids (type = -id) distinct colours."""
    palette = [(0.85, 0.10, 0.10), (0.10, 0.45, 0.85), (0.10, 0.65, 0.20), (0.95, 0.55, 0.05),
               (0.55, 0.20, 0.75), (0.00, 0.70, 0.70), (0.85, 0.30, 0.60), (0.50, 0.40, 0.10)]
    lowest, highest = int(round(type_range[0])), int(round(type_range[1]))
    annotations, colours = [], []
    for boundary_id in range(1, -lowest + 1):
        annotations += [str(-boundary_id), "boundary %d" % boundary_id]
        colours += list(palette[(boundary_id - 1) % len(palette)])
    for interior in range(max(lowest, 1), highest + 1):
        annotations += [str(interior), "interior"]
        colours += [0.55, 0.55, 0.55]
    pv.ColorBy(display, ("POINTS", "type"))
    lut = pv.GetColorTransferFunction("type")
    lut.InterpretValuesAsCategories = 1
    lut.Annotations = annotations
    lut.IndexedColors = colours
    if len(annotations) // 2 > view.ViewSize[1] // 40:   # about 40 px per legend entry
        print("render.py: %d boundary ids: colours only, no legend (it would not fit)" % -lowest)
        return
    show_legend(display, view, lut, "node type")
    bar = pv.GetScalarBar(lut, view)
    bar.TextPosition = "Ticks left/bottom, annotations right/top"   # names to the right, away from the nodes
    bar.Position = [0.78, 0.05]


def colour_by_h(display, view):
    pv.ColorBy(display, ("POINTS", "h"))
    lut = pv.GetColorTransferFunction("h")
    lut.ApplyPreset("Viridis (matplotlib)", True)
    display.RescaleTransferFunctionToDataRange(True, False)
    show_legend(display, view, lut, "h")


def add_normals(source, view, type_range, arrow_length, max_arrows):
    """Arrows along the outward normal of the boundary nodes (type < 0), at most max_arrows of them."""
    if type_range[0] >= 0:
        return
    boundary = pv.Threshold(Input=source)
    boundary.Scalars = ["POINTS", "type"]
    boundary.LowerThreshold = type_range[0]
    boundary.UpperThreshold = -0.5
    boundary.UpdatePipeline()
    count = boundary.GetDataInformation().GetNumberOfPoints()
    if count == 0:
        return
    glyph = pv.Glyph(Input=boundary, GlyphType="Arrow")
    glyph.OrientationArray = ["POINTS", "normal"]
    glyph.ScaleArray = ["POINTS", "No scale array"]
    glyph.ScaleFactor = arrow_length
    glyph.GlyphMode = "Every Nth Point" if count > max_arrows else "All Points"
    glyph.Stride = max(1, count // max_arrows)
    shown = pv.Show(glyph, view)
    pv.ColorBy(shown, None)
    shown.AmbientColor = shown.DiffuseColor = [0.1, 0.1, 0.1]


# Where the 3D camera sits relative to the focal point, per clip axis: on the side of the cut face (the kept
# half lies below the plane) and raised, so the cut face and one outer side both show; z is always up.
VIEW_DIRECTIONS = {"x": (1.0, -0.45, 0.55), "y": (0.45, 1.0, 0.55), "z": (0.35, -0.9, 1.0), "none": (0.6, -1.0, 0.7)}


def place_camera(view, dim, clip_axis, bounds, legend_room):
    view.ResetCamera()
    camera = view.GetActiveCamera()
    if dim == 2:
        view.CameraParallelProjection = 1
        camera.SetViewUp(0.0, 1.0, 0.0)
        view.ResetCamera()
        # Fit the box into the part of the picture left of the legend, whatever the aspect ratios.
        width, height = view.ViewSize
        usable_width = width * (1.0 - 2.0 * legend_room)
        camera.SetParallelScale(1.06 * max(0.5 * (bounds[3] - bounds[2]),
                                           0.5 * (bounds[1] - bounds[0]) * height / usable_width))
        shift_view_left(view, camera, legend_room)
        return
    else:
        focal = camera.GetFocalPoint()
        direction = VIEW_DIRECTIONS[clip_axis]
        distance = camera.GetDistance()
        camera.SetPosition(*[focal[i] + distance * direction[i] for i in range(3)])
        camera.SetViewUp(0.0, 0.0, 1.0)
    view.ResetCamera()
    camera.Zoom(0.9)
    shift_view_left(view, camera, legend_room)   # so the legend at the right edge covers no nodes


def shift_view_left(view, camera, fraction):
    """Moves camera and focal point right by `fraction` of the visible width, so the scene moves left."""
    position, focal, up = camera.GetPosition(), camera.GetFocalPoint(), camera.GetViewUp()
    forward = [focal[i] - position[i] for i in range(3)]
    right = [forward[1] * up[2] - forward[2] * up[1], forward[2] * up[0] - forward[0] * up[2],
             forward[0] * up[1] - forward[1] * up[0]]
    norm = sum(c * c for c in right) ** 0.5
    if view.CameraParallelProjection:
        visible_height = 2.0 * camera.GetParallelScale()
    else:
        visible_height = 2.0 * camera.GetDistance() * math.tan(math.radians(camera.GetViewAngle() / 2.0))
    width, height = view.ViewSize
    step = fraction * visible_height * width / height
    offset = [step * c / norm for c in right]
    camera.SetPosition(*[position[i] + offset[i] for i in range(3)])
    camera.SetFocalPoint(*[focal[i] + offset[i] for i in range(3)])


def smallest_extent_axis(bounds):
    """The clip axis for 3D: across the thinnest side of the box (z on ties), e.g. through a torus' plane."""
    sides = [bounds[2 * i + 1] - bounds[2 * i] for i in range(3)]
    return min(("z", "y", "x"), key=lambda a: sides["xyz".index(a)] * (1.0 - 1e-9 * (a == "z")))


def main(argv):
    args = parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    # Absolute: the Xdmf3 readers resolve the HDF5 file name against a relative XDMF path wrongly.
    source = open_nodes(os.path.abspath(xdmf_path_for(args.file)))
    bounds, dim = geometry_of(source)
    h_range = point_array_range(source, "h")
    type_range = point_array_range(source, "type")

    shown_data = source
    clip_axis = (smallest_extent_axis(bounds) if dim == 3 else "none") if args.clip == "auto" else args.clip
    if clip_axis != "none":
        shown_data = clipped(source, clip_axis, bounds)

    view = pv.CreateView("RenderView")
    view.ViewSize = [width, height]
    view.OrientationAxesVisibility = 0
    view.Background = [1.0, 1.0, 1.0]
    if hasattr(view, "UseColorPaletteForBackground"):
        view.UseColorPaletteForBackground = 0

    display = pv.Show(shown_data, view)
    display.SetRepresentationType("Points")
    if args.color == "type":
        colour_by_type(display, view, type_range)
    else:
        colour_by_h(display, view)
    if args.normals:
        add_normals(shown_data, view, type_range, arrow_length=2.0 * h_range[0] if dim == 2 else 1.5 * h_range[0],
                    max_arrows=3000 if dim == 2 else 800)

    pv.Render(view)   # the first Render() resets the camera: place it afterwards
    place_camera(view, dim, clip_axis, bounds, legend_room=0.1)
    display.PointSize = args.point_size or default_point_size(view, h_range, minimum=2.0 if dim == 2 else 1.5)
    # Spheres give 3D depth; in 2D, points of a few pixels read better flat (tiny spheres look like specks).
    display.RenderPointsAsSpheres = 1 if dim == 3 or display.PointSize >= 3 else 0
    pv.Render(view)
    pv.SaveScreenshot(args.output, view, ImageResolution=[width, height], TransparentBackground=0)
    print("render.py: wrote %s (%dD, %d points shown, colour by %s%s)"
          % (args.output, dim, shown_data.GetDataInformation().GetNumberOfPoints(), args.color,
             ", normals" if args.normals else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
