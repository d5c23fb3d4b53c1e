// Stream function of a 2D cavity flow: vorticity from the velocity, then −∇²ψ = ω by CG on a
// KokkosSparse::CrsMatrix (docs/architecture.md: Kokkos Kernels for CG), with the convention and the sub-cell
// vortex-centre location used for Ghia, Ghia & Shin (1982) comparisons.
#include <karman/core/error.hpp>
#include <karman/core/profiling_region.hpp>
#include <karman/lbm/diagnostics/stream_function.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>

#include <cmath>
#include <sstream>
#include <string>

namespace karman::lbm {
namespace {

using execution_space = Kokkos::DefaultExecutionSpace;
using memory_space = execution_space::memory_space;
using device_type = Kokkos::Device<execution_space, memory_space>;
using Matrix = KokkosSparse::CrsMatrix<double, int, device_type, void, int>;
using Vector = Kokkos::View<double*, memory_space>;
using IndexVector = Kokkos::View<int*, memory_space>;
using VelocityView = Kokkos::View<const double**, Kokkos::LayoutRight>;

constexpr const char* where = "karman::lbm::compute_stream_function";
constexpr double cg_tolerance = 1e-10;
// 5 n matrix entries must fit the int ordinals and offsets: 5 · 16384² < 2³¹.
constexpr int max_cells_per_side = 1 << 14;

// ω = ∂v/∂x − ∂u/∂y at the cell centres, in units of U/L. Across a wall the derivative is the
// one of the parabola through the wall value (half a cell away) and the two nearest centres:
// at offsets −h/2, 0, h it is (−4 f_wall + 3 f_0 + f_1)/(3h), second order like the central
// difference inside. Only the wall-tangential velocity enters: v on the side walls (0), u on
// the bottom (0) and on the lid.
struct VorticityFunctor {
  VelocityView ux, uy;
  Vector omega;
  int nx, ny;
  double inverse_scale, lid, inverse_hx, inverse_hy;

  KOKKOS_INLINE_FUNCTION double u(int j, int i) const { return ux(j, i) * inverse_scale; }
  KOKKOS_INLINE_FUNCTION double v(int j, int i) const { return uy(j, i) * inverse_scale; }
  KOKKOS_INLINE_FUNCTION static double from_wall(double wall, double first, double second, double inverse_h) {
    return (-4.0 * wall + 3.0 * first + second) * inverse_h / 3.0;
  }

  KOKKOS_INLINE_FUNCTION void operator()(int row) const {
    const int j = row / nx, i = row % nx;
    double dv_dx, du_dy;
    if (i == 0) {
      dv_dx = from_wall(0.0, v(j, 0), v(j, 1), inverse_hx);
    } else if (i == nx - 1) {
      dv_dx = -from_wall(0.0, v(j, i), v(j, i - 1), inverse_hx);
    } else {
      dv_dx = 0.5 * (v(j, i + 1) - v(j, i - 1)) * inverse_hx;
    }
    if (j == 0) {
      du_dy = from_wall(0.0, u(0, i), u(1, i), inverse_hy);
    } else if (j == ny - 1) {
      du_dy = -from_wall(lid, u(j, i), u(j - 1, i), inverse_hy);
    } else {
      du_dy = 0.5 * (u(j + 1, i) - u(j - 1, i)) * inverse_hy;
    }
    omega(row) = dv_dx - du_dy;
  }
};

KOKKOS_INLINE_FUNCTION int row_entries(int i, int j, int nx, int ny) {
  return 5 - (i == 0) - (i == nx - 1) - (j == 0) - (j == ny - 1);
}

// row_map(r + 1) = entries in rows 0..r.
struct RowMapFunctor {
  IndexVector row_map;
  int nx, ny;

  KOKKOS_INLINE_FUNCTION void operator()(int row, int& offset, bool final) const {
    offset += row_entries(row % nx, row / nx, nx, ny);
    if (final) row_map(row + 1) = offset;
  }
};

// −∇² on the cell centres, columns ascending. ψ = 0 on a wall face means the ghost centre
// beyond it holds −ψ_0, which adds 1/h² to the diagonal instead of coupling to a neighbour.
struct LaplacianFunctor {
  IndexVector row_map, columns;
  Vector values;
  int nx, ny;
  double inverse_hx2, inverse_hy2;

  KOKKOS_INLINE_FUNCTION void operator()(int row) const {
    const int j = row / nx, i = row % nx;
    int k = row_map(row);
    auto put = [&](int column, double value) {
      columns(k) = column;
      values(k) = value;
      ++k;
    };
    if (j > 0) put(row - nx, -inverse_hy2);
    if (i > 0) put(row - 1, -inverse_hx2);
    put(row, (2 + (i == 0) + (i == nx - 1)) * inverse_hx2 + (2 + (j == 0) + (j == ny - 1)) * inverse_hy2);
    if (i < nx - 1) put(row + 1, -inverse_hx2);
    if (j < ny - 1) put(row + nx, -inverse_hy2);
  }
};

Matrix assemble_negative_laplacian(int nx, int ny) {
  const int rows = nx * ny;
  IndexVector row_map("karman::stream_function::row_map", rows + 1);
  int entries = 0;
  Kokkos::parallel_scan("karman::stream_function::row_map", Kokkos::RangePolicy<execution_space>(0, rows),
                        RowMapFunctor{row_map, nx, ny}, entries);
  IndexVector columns(Kokkos::ViewAllocateWithoutInitializing("karman::stream_function::columns"), entries);
  Vector values(Kokkos::ViewAllocateWithoutInitializing("karman::stream_function::values"), entries);
  Kokkos::parallel_for("karman::stream_function::laplacian", Kokkos::RangePolicy<execution_space>(0, rows),
                       LaplacianFunctor{row_map, columns, values, nx, ny, double(nx) * nx, double(ny) * ny});
  return Matrix("karman::stream_function::matrix", rows, rows, entries, values, row_map, columns);
}

struct CgOutcome {
  int iterations;
  double residual;
};

// Unpreconditioned CG (Hestenes & Stiefel 1952) from x = 0: the 5-point matrix has a nearly
// constant diagonal, so Jacobi scaling would gain nothing.
CgOutcome conjugate_gradients(const Matrix& a, const Vector& b, const Vector& x, int max_iterations) {
  const int rows = a.numRows();
  const double b_norm = KokkosBlas::nrm2(b);
  if (!std::isfinite(b_norm)) {
    throw Error(std::string(where) + ": the vorticity norm is " + std::to_string(b_norm) +
                "; the velocity field holds a NaN or an infinity");
  }
  Kokkos::deep_copy(x, 0.0);
  if (b_norm == 0) return {0, 0.0};
  Vector r("karman::stream_function::r", rows), p("karman::stream_function::p", rows),
      ap("karman::stream_function::Ap", rows);
  Kokkos::deep_copy(r, b);
  Kokkos::deep_copy(p, b);
  double rr = KokkosBlas::dot(r, r);
  int iteration = 0;
  while (std::sqrt(rr) > cg_tolerance * b_norm) {
    if (iteration == max_iterations) {
      std::ostringstream msg;
      msg << where << ": CG did not converge in " << max_iterations << " iterations (relative residual "
          << std::sqrt(rr) / b_norm << " > " << cg_tolerance << ")";
      throw Error(msg.str());
    }
    KokkosSparse::spmv("N", 1.0, a, p, 0.0, ap);
    const double alpha = rr / KokkosBlas::dot(p, ap);
    KokkosBlas::axpby(alpha, p, 1.0, x);
    KokkosBlas::axpby(-alpha, ap, 1.0, r);
    const double rr_next = KokkosBlas::dot(r, r);
    KokkosBlas::axpby(1.0, r, rr_next / rr, p);
    rr = rr_next;
    ++iteration;
  }
  // Report the true residual b − A x, not the recurrence's, which drifts from it.
  KokkosSparse::spmv("N", 1.0, a, x, 0.0, ap);
  KokkosBlas::axpby(1.0, b, -1.0, ap);
  return {iteration, KokkosBlas::nrm2(ap) / b_norm};
}

// Vertex of the parabola through (a, f_a), (0, f_0), (b, f_b) with a < 0 < b, if it is a
// minimum, clamped to the cell [−1/2, 1/2]; the cell centre otherwise. Offsets in cells.
struct Vertex {
  double offset = 0;  // from the cell centre, in cells
  double change = 0;  // fitted value there minus f_0
};

Vertex parabola_minimum(double a, double f_a, double f_0, double b, double f_b) {
  const double slope_a = (f_a - f_0) / a, slope_b = (f_b - f_0) / b;
  const double curvature = (slope_b - slope_a) / (b - a);  // f = f_0 + slope t + curvature t²
  const double slope = slope_a - curvature * a;
  if (!(curvature > 0)) return {};
  const double t = std::fmin(0.5, std::fmax(-0.5, -slope / (2 * curvature)));
  return {t, slope * t + curvature * t * t};
}

// Minimum of sign · ψ: the extreme cell (the first in memory order on ties), refined by one
// parabola along x and one along y; a wall, ψ = 0 half a cell away, stands in for a missing
// neighbour.
template <class HostPsi>
StreamFunctionExtremum locate_minimum(const HostPsi& psi, double sign) {
  const int ny = int(psi.extent(0)), nx = int(psi.extent(1));
  int jm = 0, im = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      if (sign * psi(j, i) < sign * psi(jm, im)) jm = j, im = i;
  const auto value = [&](int j, int i) { return sign * psi(j, i); };
  const double f_0 = value(jm, im);
  const Vertex along_x = parabola_minimum(im > 0 ? -1.0 : -0.5, im > 0 ? value(jm, im - 1) : 0.0, f_0,
                                          im < nx - 1 ? 1.0 : 0.5, im < nx - 1 ? value(jm, im + 1) : 0.0);
  const Vertex along_y = parabola_minimum(jm > 0 ? -1.0 : -0.5, jm > 0 ? value(jm - 1, im) : 0.0, f_0,
                                          jm < ny - 1 ? 1.0 : 0.5, jm < ny - 1 ? value(jm + 1, im) : 0.0);
  StreamFunctionExtremum extremum;
  extremum.value = sign * (f_0 + along_x.change + along_y.change);
  extremum.x = (im + 0.5 + along_x.offset) / nx;
  extremum.y = (jm + 0.5 + along_y.offset) / ny;
  return extremum;
}

std::string shape(const VelocityView& view) {
  return "(" + std::to_string(view.extent(0)) + ", " + std::to_string(view.extent(1)) + ")";
}

}  // namespace

StreamFunctionResult compute_stream_function(Kokkos::View<const double**, Kokkos::LayoutRight> ux,
                                             Kokkos::View<const double**, Kokkos::LayoutRight> uy,
                                             double velocity_scale, double lid_velocity_scaled) {
  const ProfilingRegion region(where);
  if (ux.extent(0) != uy.extent(0) || ux.extent(1) != uy.extent(1)) {
    throw Error(std::string(where) + ": ux has shape " + shape(ux) + " but uy has shape " + shape(uy) +
                "; both must be (ny, nx)");
  }
  const int ny = int(ux.extent(0)), nx = int(ux.extent(1));
  require_in_range(where, "nx", std::size_t(ux.extent(1)), std::size_t(2), std::size_t(max_cells_per_side));
  require_in_range(where, "ny", std::size_t(ux.extent(0)), std::size_t(2), std::size_t(max_cells_per_side));
  if (!(velocity_scale > 0) || !std::isfinite(velocity_scale)) {
    throw Error(std::string(where) + ": velocity_scale = " + std::to_string(velocity_scale) + " out of range (0, inf)");
  }
  if (!std::isfinite(lid_velocity_scaled)) {
    throw Error(std::string(where) + ": lid_velocity_scaled = " + std::to_string(lid_velocity_scaled) +
                " is not finite");
  }

  const int rows = nx * ny;
  Vector omega(Kokkos::ViewAllocateWithoutInitializing("karman::stream_function::omega"), rows);
  Kokkos::parallel_for(
      "karman::stream_function::vorticity", Kokkos::RangePolicy<execution_space>(0, rows),
      VorticityFunctor{ux, uy, omega, nx, ny, 1.0 / velocity_scale, lid_velocity_scaled, double(nx), double(ny)});
  const Matrix a = assemble_negative_laplacian(nx, ny);

  StreamFunctionResult result;
  result.psi = Kokkos::View<double**, Kokkos::LayoutRight>("karman::stream_function::psi", ny, nx);
  // LayoutRight without padding: (j, i) is element j nx + i, the matrix row.
  const Vector psi_flat(result.psi.data(), rows);
  const CgOutcome cg = conjugate_gradients(a, omega, psi_flat, 10 * (nx + ny) + 100);
  result.iterations = cg.iterations;
  result.residual = cg.residual;

  const auto host_psi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result.psi);
  result.minimum = locate_minimum(host_psi, 1.0);
  result.maximum = locate_minimum(host_psi, -1.0);
  return result;
}

}  // namespace karman::lbm
