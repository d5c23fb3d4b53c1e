#include "xdmf.hpp"

#include <cstdio>

namespace karman::detail {
namespace {

/// %.17g: positions and times exactly as the solver had them.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// XDMF lists dimensions slowest first, like the HDF5 datasets: "nz ny nx".
std::string zyx(const std::array<int, 3>& xyz) {
  return std::to_string(xyz[2]) + " " + std::to_string(xyz[1]) + " " + std::to_string(xyz[0]);
}
std::string zyx(const std::array<double, 3>& xyz) {
  return number(xyz[2]) + " " + number(xyz[1]) + " " + number(xyz[0]);
}

void append_uniform_grid(std::string& xml, const std::string& indent, const std::string& name, const XdmfPiece& piece,
                         const std::vector<std::string>& datasets, const std::array<double, 3>& spacing,
                         const std::string& time_element) {
  const std::string dims = zyx(piece.cells);
  xml += indent + "<Grid Name=\"" + name + "\" GridType=\"Uniform\">\n";
  xml += time_element;
  // The nodes of the CoRectMesh are the cell centres: values are Center="Node" there, which
  // ParaView shows at the right place without resampling (a nz = 1 box is a 2D slice).
  xml += indent + "  <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" + dims + "\"/>\n";
  // ORIGIN_DXDYDZ lists z, y, x like Dimensions (VTK's XDMF reader reverses both).
  xml += indent + "  <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n";
  xml += indent +
         "    <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" +
         zyx(piece.first_centre) + "</DataItem>\n";
  xml += indent +
         "    <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" +
         zyx(spacing) + "</DataItem>\n";
  xml += indent + "  </Geometry>\n";
  for (const std::string& dataset : datasets) {
    xml += indent + "  <Attribute Name=\"" + dataset + "\" AttributeType=\"Scalar\" Center=\"Node\">\n";
    xml += indent + "    <DataItem Dimensions=\"" + dims + "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" +
           piece.file + ":/" + dataset + "</DataItem>\n";
    xml += indent + "  </Attribute>\n";
  }
  xml += indent + "</Grid>\n";
}

}  // namespace

std::string xdmf_document(const std::vector<XdmfStep>& steps, const std::vector<std::string>& datasets,
                          const std::array<double, 3>& spacing) {
  std::string xml =
      "<?xml version=\"1.0\" ?>\n"
      "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      "<Xdmf Version=\"2.0\">\n"
      "  <Domain>\n"
      "    <Grid Name=\"fields\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  const std::string indent = "      ";
  for (const XdmfStep& step : steps) {
    const std::string name = "step_" + std::to_string(step.step);
    const std::string time_element = indent + "  <Time Value=\"" + number(step.time) + "\"/>\n" + indent +
                                     "  <Information Name=\"step\" Value=\"" + std::to_string(step.step) + "\"/>\n";
    if (step.pieces.size() == 1) {
      append_uniform_grid(xml, indent, name, step.pieces[0], datasets, spacing, time_element);
      continue;
    }
    // Serial HDF5: one grid per rank file; the collection's time applies to all of them.
    xml += indent + "<Grid Name=\"" + name + "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
    xml += time_element;
    for (std::size_t r = 0; r < step.pieces.size(); ++r) {
      append_uniform_grid(xml, indent + "  ", name + "_rank" + std::to_string(r), step.pieces[r], datasets, spacing,
                          "");
    }
    xml += indent + "</Grid>\n";
  }
  xml +=
      "    </Grid>\n"
      "  </Domain>\n"
      "</Xdmf>\n";
  return xml;
}

}  // namespace karman::detail
