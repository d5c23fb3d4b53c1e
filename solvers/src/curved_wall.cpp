#include <karman/lbm/curved_wall.hpp>

#include <karman/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace karman::lbm {

double circle_link_fraction(const double (&a)[3], const double (&b)[3], const double (&c)[3], double r) {
  double dd = 0, md = 0, mm = 0, bb = 0;
  for (int k = 0; k < 3; ++k) {
    const double d = b[k] - a[k], m = a[k] - c[k], e = b[k] - c[k];
    dd += d * d;
    md += m * d;
    mm += m * m;
    bb += e * e;
  }
  const double outside = mm - r * r;
  if (!(outside > 0 && bb <= r * r)) {
    throw std::logic_error("karman::lbm::circle_link_fraction: the link does not enter the circle (|a - c|^2 - r^2 = " +
                           std::to_string(outside) + ", |b - c|^2 - r^2 = " + std::to_string(bb - r * r) + ")");
  }
  // Smaller root of dd q^2 + 2 md q + outside = 0 in the cancellation-free form 2C / (-B + sqrt(B^2 - 4AC)):
  // for a link grazing the circle the textbook form loses the digits q is made of.
  const double disc = md * md - dd * outside;
  return outside / (-md + std::sqrt(disc > 0 ? disc : 0.0));
}

WallLink cut_link(index_t fluid, index_t solid, int direction, double q, index_t next, index_t next2, int order,
                  const std::array<int, 3>& at, const std::string& who) {
  if (!(q > 0.0 && q <= 1.0)) {
    throw Error(who + ": link fraction q = " + std::to_string(q) + " at voxel (" + std::to_string(at[0]) + ", " +
                std::to_string(at[1]) + ", " + std::to_string(at[2]) + ") out of range (0, 1]");
  }
  WallLink link;
  link.fluid = fluid;
  link.solid = solid;
  link.direction = direction;
  link.q = q;
  link.order = next < 0 ? 0 : next2 < 0 ? std::min(order, 1) : order;
  link.next = next < 0 ? fluid : next;
  link.next2 = next2 < 0 ? fluid : next2;
  return link;
}

}  // namespace karman::lbm
