#include <karman/core/error.hpp>
#include <karman/io/box_geometry.hpp>

#include <cmath>
#include <sstream>

namespace karman::io {

void validate(const BoxGeometry& box, const char* where) {
  karman::validate(box.extents, where);
  const char axes[] = "xyz";
  for (int a = 0; a < 3; ++a) {
    std::ostringstream msg;
    if (!(std::isfinite(box.spacing[a]) && box.spacing[a] > 0.0)) {
      msg << where << ": spacing along " << axes[a] << " = " << box.spacing[a] << "; it must be finite and > 0";
      throw Error(msg.str());
    }
    if (!std::isfinite(box.origin[a])) {
      msg << where << ": origin along " << axes[a] << " = " << box.origin[a] << "; it must be finite";
      throw Error(msg.str());
    }
  }
}

}  // namespace karman::io
