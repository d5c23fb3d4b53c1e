#pragma once
/// \file delta_kernel.hpp
/// Regularized delta functions of the immersed-boundary method (Peskin, Acta Numerica 11, 479
/// (2002)): one-dimensional kernels phi(r) of a distance r in voxels, applied as the tensor
/// product phi(x) phi(y) phi(z). Interpolation (u at a marker) and spreading (a marker's force to
/// the voxels) use the same kernel, so the force the fluid receives is the transpose of the
/// velocity it is read from (Chen et al. §3.1, Eq. 6 and 8).
///
/// Each kernel is a tag with its support (voxels per axis), phi() and whether it satisfies the
/// first-moment condition sum_j (x - j) phi(x - j) = 0 exactly (every kernel here satisfies the
/// partition of unity sum_j phi(x - j) = 1 exactly).

#include <karman/core/error.hpp>
#include <karman/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <string_view>

namespace karman::lbm {

/// The 2-point hat 1 - |r|: bilinear interpolation, the smallest kernel (Chen et al. §3.1 use
/// it to keep vortices near the surface sharp).
struct LinearDelta {
  static constexpr const char* name = "linear";
  static constexpr int support = 2;
  static constexpr bool first_moment = true;
  KOKKOS_INLINE_FUNCTION static double phi(double r) {
    const double a = compat::math::fabs(r);
    return a < 1.0 ? 1.0 - a : 0.0;
  }
};

/// Roma, Peskin & Berger's 3-point kernel (J. Comput. Phys. 153, 509 (1999)): the
/// narrowest kernel with both moment conditions and sum phi^2 = 1/2, the one Uhlmann (2005) and
/// Breugem (2012) use with direct forcing.
struct Roma3Delta {
  static constexpr const char* name = "roma3";
  static constexpr int support = 3;
  static constexpr bool first_moment = true;
  KOKKOS_INLINE_FUNCTION static double phi(double r) {
    const double a = compat::math::fabs(r);
    if (a <= 0.5) return (1.0 + compat::math::sqrt(1.0 - 3.0 * a * a)) / 3.0;
    if (a <= 1.5) return (5.0 - 3.0 * a - compat::math::sqrt(1.0 - 3.0 * (1.0 - a) * (1.0 - a))) / 6.0;
    return 0.0;
  }
};

/// Peskin's 4-point kernel (Acta Numerica 2002): both moment conditions and
/// sum phi^2 = 3/8, so its interpolation varies least as a marker moves across voxels.
struct Peskin4Delta {
  static constexpr const char* name = "peskin4";
  static constexpr int support = 4;
  static constexpr bool first_moment = true;
  KOKKOS_INLINE_FUNCTION static double phi(double r) {
    const double a = compat::math::fabs(r);
    if (a <= 1.0) return (3.0 - 2.0 * a + compat::math::sqrt(1.0 + 4.0 * a - 4.0 * a * a)) / 8.0;
    if (a <= 2.0) return (5.0 - 2.0 * a - compat::math::sqrt(-7.0 + 12.0 * a - 4.0 * a * a)) / 8.0;
    return 0.0;
  }
};

/// Peskin's 4-point cosine kernel (1 + cos(pi r / 2)) / 4 (Peskin, J. Comput. Phys. 25, 220
/// (1977)): smooth, a partition of unity, but its first moment is not zero (a linear field is
/// interpolated with an error up to about 0.1 voxel of gradient).
struct Cosine4Delta {
  static constexpr const char* name = "cosine4";
  static constexpr int support = 4;
  static constexpr bool first_moment = false;
  KOKKOS_INLINE_FUNCTION static double phi(double r) {
    const double a = compat::math::fabs(r);
    return a < 2.0 ? 0.25 * (1.0 + compat::math::cos(0.5 * 3.14159265358979323846 * a)) : 0.0;
  }
};

/// The kernels by name, for options.
enum class DeltaKernel { linear, roma3, peskin4, cosine4 };

/// "linear, roma3, peskin4, cosine4".
inline const char* delta_kernel_names() { return "linear, roma3, peskin4, cosine4"; }

/// The option name of a kernel.
inline const char* delta_kernel_name(DeltaKernel k) {
  switch (k) {
    case DeltaKernel::linear:
      return LinearDelta::name;
    case DeltaKernel::roma3:
      return Roma3Delta::name;
    case DeltaKernel::peskin4:
      return Peskin4Delta::name;
    case DeltaKernel::cosine4:
      return Cosine4Delta::name;
  }
  return "";
}

/// The kernel named `name`; throws karman::Error naming the accepted ones for any other name.
inline DeltaKernel delta_kernel_from_name(std::string_view name) {
  for (DeltaKernel k : {DeltaKernel::linear, DeltaKernel::roma3, DeltaKernel::peskin4, DeltaKernel::cosine4})
    if (name == delta_kernel_name(k)) return k;
  throw Error("unknown delta kernel '" + std::string(name) + "'; accepted: " + delta_kernel_names());
}

/// Calls f(Kernel{}) for the tag of `k`.
template <class F>
decltype(auto) dispatch_delta_kernel(DeltaKernel k, F&& f) {
  switch (k) {
    case DeltaKernel::linear:
      return f(LinearDelta{});
    case DeltaKernel::roma3:
      return f(Roma3Delta{});
    case DeltaKernel::peskin4:
      return f(Peskin4Delta{});
    case DeltaKernel::cosine4:
      break;
  }
  return f(Cosine4Delta{});
}

/// The voxels along one axis that a kernel of support S reaches from coordinate x (voxel j sits
/// at coordinate j): first(x) .. first(x) + S - 1, and their weights phi(x - j).
template <class Kernel>
struct DeltaStencil1D {
  int first = 0;
  double weight[Kernel::support] = {};

  KOKKOS_INLINE_FUNCTION explicit DeltaStencil1D(double x) {
    // The S voxels nearest x: for even S those within S/2 on either side, for odd S those within
    // S/2 of x's nearest voxel.
    const double lowest = x - 0.5 * Kernel::support;
    const int truncated = int(lowest);
    first = truncated - (double(truncated) > lowest ? 1 : 0) + 1;
    for (int k = 0; k < Kernel::support; ++k) weight[k] = Kernel::phi(x - double(first + k));
  }
};

}  // namespace karman::lbm
