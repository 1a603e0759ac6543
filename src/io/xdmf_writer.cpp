#include "nodegen/io/xdmf_writer.hpp"

#include <sstream>

#include "nodegen/io/layout.hpp"

namespace nodegen::io {

std::filesystem::path xdmf_path_for(const std::filesystem::path& h5_path) {
  std::filesystem::path out = h5_path;
  out.replace_extension(".xdmf");
  return out;
}

namespace {

// XML-escapes a file name for use as element text (a file name may hold & or <).
std::string xml_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string xdmf_document(const std::string& h5_file_name, std::size_t node_count) {
  const std::string file = xml_text(h5_file_name);
  const std::string n = std::to_string(node_count);
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n"
    << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    // The comment names no file: a name holding "--" would end it and break the XML.
    << "<!-- Written by nodegen: the nodes as points (exact positions: /domain/pos of the HDF5 file). -->\n"
    << "<Xdmf Version=\"3.0\">\n"
    << "  <Domain>\n"
    << "    <Grid Name=\"nodes\" GridType=\"Uniform\">\n"
    // One Polyvertex cell per node: renders as points in every stock reader, unlike a single
    // N-vertex cell (one cell is picked and coloured as a whole) or a topology without connectivity.
    << "      <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n << "\" NodesPerElement=\"1\">\n"
    << "        <DataItem Dimensions=\"" << n << " 1\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">"
    << file << ":" << layout::paraview_connectivity << "</DataItem>\n"
    << "      </Topology>\n"
    << "      <Geometry GeometryType=\"XYZ\">\n"
    << "        <DataItem Dimensions=\"" << n << " 3\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">"
    << file << ":" << layout::paraview_points << "</DataItem>\n"
    << "      </Geometry>\n"
    << "      <Attribute Name=\"type\" AttributeType=\"Scalar\" Center=\"Node\">\n"
    << "        <DataItem Dimensions=\"" << n << "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">"
    << file << ":" << layout::types << "</DataItem>\n"
    << "      </Attribute>\n"
    << "      <Attribute Name=\"h\" AttributeType=\"Scalar\" Center=\"Node\">\n"
    << "        <DataItem Dimensions=\"" << n << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
    << file << ":" << layout::h << "</DataItem>\n"
    << "      </Attribute>\n"
    << "      <Attribute Name=\"normal\" AttributeType=\"Vector\" Center=\"Node\">\n"
    << "        <DataItem Dimensions=\"" << n << " 3\" NumberType=\"Float\" Precision=\"4\" Format=\"HDF\">"
    << file << ":" << layout::paraview_normal << "</DataItem>\n"
    << "      </Attribute>\n"
    << "    </Grid>\n"
    << "  </Domain>\n"
    << "</Xdmf>\n";
  return x.str();
}

}  // namespace nodegen::io
