// Built with KARMAN_ENABLE_HDF5=OFF: asking for field output says so plainly instead of writing nothing.
#include <karman/core/error.hpp>
#include <karman/io/field_writer.hpp>

#include <gtest/gtest.h>

TEST(FieldWriterWithoutHdf5, RefusesWithAClearMessage) {
  EXPECT_FALSE(karman::io::FieldWriter::available());
  karman::io::BoxGeometry box;
  box.extents = karman::Extents{4, 4, 1};
  try {
    karman::io::FieldWriter writer("out", box, {"rho"});
    ADD_FAILURE() << "a FieldWriter was built without HDF5";
  } catch (const karman::Error& e) {
    EXPECT_NE(std::string(e.what()).find("KARMAN_ENABLE_HDF5=OFF"), std::string::npos) << e.what();
  }
}
