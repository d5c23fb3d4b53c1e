// Compile-time checks of the lattice descriptors' invariants (lattice.hpp): opposite
// directions, the crossing blocks along the slab axis, weights summing to one and the
// second moment equal to c_s^2. A descriptor that breaks one does not compile.
#include <karman/lbm/lattices.hpp>

namespace karman::lbm {
namespace {

template <class L>
constexpr bool check_lattice() {
  double sum_w = 0, second_moment[3][3] = {};
  for (int i = 0; i < L::Q; ++i) {
    for (int a = 0; a < 3; ++a) {
      if (L::c(L::opposite(i), a) != -L::c(i, a)) return false;
      for (int b = 0; b < 3; ++b) second_moment[a][b] += L::w(i) * L::c(i, a) * L::c(i, b);
    }
    const int slab = L::c(i, L::slab_axis);
    const bool down = i < L::towards_lower().end, up = i >= L::towards_upper().begin;
    if ((slab == -1) != down || (slab == +1) != up) return false;
    sum_w += L::w(i);
  }
  if (L::c(L::rest, 0) != 0 || L::c(L::rest, 1) != 0 || L::c(L::rest, 2) != 0) return false;
  auto near = [](double a, double b) { return a - b < 1e-15 && b - a < 1e-15; };
  for (int a = 0; a < L::D; ++a)
    for (int b = 0; b < L::D; ++b)
      if (!near(second_moment[a][b], a == b ? cs2 : 0.0)) return false;
  return near(sum_w, 1.0);
}

static_assert(check_lattice<D2Q9>(), "D2Q9 descriptor violates lattice.hpp invariants");
static_assert(check_lattice<D3Q19>(), "D3Q19 descriptor violates lattice.hpp invariants");
static_assert(check_lattice<D3Q27>(), "D3Q27 descriptor violates lattice.hpp invariants");

}  // namespace
}  // namespace karman::lbm
