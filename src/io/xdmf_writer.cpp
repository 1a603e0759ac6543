#include "nodegen/io/xdmf_writer.hpp"

#include <cstdint>
#include <sstream>

#include "nodegen/geometry/input_error.hpp"
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

std::string xdmf_unnameable_reason(const std::string& name) {
  for (std::size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f) return "holds the control character " + hex_byte(c) + ", which XML cannot hold";
    if (c < 0x80) {
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, then continuation bytes, and the code point
    // neither overlong, a surrogate, beyond U+10FFFF, nor one of XML's two excluded U+FFFE and U+FFFF.
    const int length = c >= 0xc2 && c <= 0xdf ? 2 : (c & 0xf0) == 0xe0 ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    std::uint32_t code = length == 2 ? c & 0x1f : length == 3 ? c & 0x0f : c & 0x07;
    bool valid = length > 0 && i + static_cast<std::size_t>(length) <= name.size();
    for (int k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(name[i + static_cast<std::size_t>(k)]);
      valid = (next & 0xc0) == 0x80;
      code = (code << 6) | (next & 0x3f);
    }
    valid = valid && !(length == 3 && code < 0x800) && !(length == 4 && (code < 0x10000 || code > 0x10ffff)) &&
            !(code >= 0xd800 && code <= 0xdfff) && code != 0xfffe && code != 0xffff;
    if (!valid) return "is not valid UTF-8 (at byte " + std::to_string(i) + ", " + hex_byte(c) + "), which XML cannot hold";
    i += static_cast<std::size_t>(length);
  }
  return "";
}

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
