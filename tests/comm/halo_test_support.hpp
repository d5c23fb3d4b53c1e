#pragma once
// What the halo tests share: lattice shapes and the LBM halo plans of the solver (AB; AA
// before odd and even steps), fields whose every value names its global voxel and component,
// and the value each voxel must hold after an exchange. Karman::comm knows no physics, so the
// tests need no Karman::lbm: a lattice here is only what an exchange sees of it.

#include <karman/comm/slab_decomposition.hpp>
#include <karman/core/dense/slab_halo_plan.hpp>
#include <karman/core/field.hpp>
#include <karman/core/layouts.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace karman::test {

/// What a halo exchange sees of a lattice: dimension, Q, and the populations crossing a slab
/// boundary each way, ordered as the solver's lattices are (those moving down first, those
/// moving up last; Meneghin & Mahmoud §III), so each crossing set is one component range.
template <int Dim, int Q_, int Crossing>
struct LatticeShape {
  static constexpr int D = Dim;              ///< spatial dimension
  static constexpr int Q = Q_;               ///< populations per voxel
  static constexpr int crossing = Crossing;  ///< populations crossing a slab boundary each way
  /// Populations moving towards the lower neighbour.
  static constexpr ComponentRange towards_lower() { return {0, Crossing}; }
  /// Populations moving towards the upper neighbour.
  static constexpr ComponentRange towards_upper() { return {Q_ - Crossing, Q_}; }
};

/// D2Q9: 3 of 9 populations cross each way.
struct D2Q9 : LatticeShape<2, 9, 3> {
  static constexpr const char* name = "d2q9";
};
/// D3Q19: 5 of 19 populations cross each way.
struct D3Q19 : LatticeShape<3, 19, 5> {
  static constexpr const char* name = "d3q19";
};
/// D3Q27: 9 of 27 populations cross each way.
struct D3Q27 : LatticeShape<3, 27, 9> {
  static constexpr const char* name = "d3q27";
};

/// The layouts every halo test runs on.
using HaloLayouts = ::testing::Types<AoS, SoA, CSoA<4>, Disaggregated>;

/// A field of doubles in the default memory space (device memory on GPU builds).
template <class Layout>
using TestField = Field<double, Layout>;

/// AB (pull, two lattices), on the source lattice before each step: what leaves a slab is
/// pulled into the neighbour's halo.
template <class Lattice>
HaloPlan ab_plan(const SlabPartition& p) {
  return slab_halo_plan(p, Lattice::towards_upper(), Lattice::towards_lower());
}

/// AA (one lattice) before an odd step: populations stored swapped, so the crossing ranges flip.
template <class Lattice>
HaloPlan aa_odd_plan(const SlabPartition& p) {
  return slab_halo_plan(p, Lattice::towards_lower(), Lattice::towards_upper());
}

/// AA before an even step: what the odd step wrote into the halo goes back to its owner.
template <class Lattice>
HaloPlan aa_even_plan(const SlabPartition& p) {
  return reversed(aa_odd_plan<Lattice>(p));
}

/// A plan of a slab partition (one of the three above), for helpers that build the partition.
using PlanMaker = HaloPlan (*)(const SlabPartition&);

/// A box for `Lattice` whose plane count divides by none of 2, 3, 4 (uneven slabs).
template <class Lattice>
Extents test_box() {
  return Lattice::D == 2 ? Extents{5, 11, 1} : Extents{3, 2, 11};
}

/// Where a local voxel sits globally: the same numbering on every rank, wrapped periodically,
/// so a halo voxel and the neighbour's voxel it mirrors have the same index.
struct GlobalIndex {
  index_t plane = 1;      ///< voxels per plane
  int first_plane = 0;    ///< global plane of local plane 0 (the lower halo)
  int global_planes = 1;  ///< planes of the global box

  KOKKOS_INLINE_FUNCTION index_t operator()(index_t voxel) const {
    const int p = int(voxel / plane);
    const int wrapped = (first_plane + p + global_planes) % global_planes;
    return voxel % plane + plane * wrapped;
  }
  static GlobalIndex of(const SlabPartition& part) {
    return {part.plane_size(), part.owned_begin() - 1, part.global().extent(part.axis())};
  }
};

/// Value of component q of global voxel g: positive in owned voxels, negated in halo voxels
/// before any exchange, so every value says where it came from.
KOKKOS_INLINE_FUNCTION double encoded(index_t global_voxel, int q) { return double(global_voxel * 32 + q + 1); }

/// Fills owned voxels with +encoded and halo voxels with -encoded.
template <class FieldType>
struct FillEncoded {
  FieldType field;
  GlobalIndex global;
  VoxelRange owned;

  KOKKOS_INLINE_FUNCTION void operator()(index_t voxel) const {
    const double sign = voxel >= owned.begin && voxel < owned.end ? 1.0 : -1.0;
    for (int q = 0; q < field.components(); ++q) field(voxel, q) = sign * encoded(global(voxel), q);
  }
};

/// Allocates a field of Q components on the decomposition's slab and fills it with FillEncoded.
template <class FieldType>
FieldType make_encoded_field(const comm::SlabDecomposition& dec, int q_count, const std::string& label) {
  const SlabPartition& part = dec.partition();
  FieldType field(label, part.groups(), q_count);
  Kokkos::parallel_for(
      "karman::test::fill_encoded",
      Kokkos::RangePolicy<typename FieldType::execution_space, Kokkos::IndexType<index_t>>(0, part.local_size()),
      FillEncoded<FieldType>{field, GlobalIndex::of(part), part.owned()});
  Kokkos::fence();
  return field;
}

/// The values a field must hold after exchanging `plan` on a field filled by make_encoded_field:
/// received components take the sender's value (its sign tells whether it came from owned or
/// halo voxels); `widened_into_halo` is AoS's whole-voxel receive into halo groups.
inline std::vector<double> expected_after(const comm::SlabDecomposition& dec, int q_count, const HaloPlan& plan,
                                          bool widened_into_halo) {
  const SlabPartition& part = dec.partition();
  const GlobalIndex global = GlobalIndex::of(part);
  const VoxelRange owned = part.owned();
  const auto local = static_cast<std::size_t>(part.local_size());
  std::vector<double> expected(local * std::size_t(q_count));
  for (index_t v = 0; v < part.local_size(); ++v) {
    const double sign = v >= owned.begin && v < owned.end ? 1.0 : -1.0;
    for (int q = 0; q < q_count; ++q) expected[std::size_t(v) * q_count + q] = sign * encoded(global(v), q);
  }
  for (const HaloTransfer& r : plan.receives) {
    if (!dec.has_neighbour(r.neighbour)) continue;
    int from = r.group;
    for (const HaloTransfer& s : plan.sends)
      if (s.neighbour == r.neighbour.opposite() && s.components.begin == r.components.begin) from = s.group;
    const bool from_halo = part.groups()[from].role == GroupRole::halo;
    const bool into_halo = part.groups()[r.group].role == GroupRole::halo;
    const ComponentRange comps = widened_into_halo && into_halo ? ComponentRange{0, q_count} : r.components;
    const VoxelRange voxels = part.group(r.group);
    for (index_t v = voxels.begin; v < voxels.end; ++v)
      for (int q = comps.begin; q < comps.end; ++q)
        expected[std::size_t(v) * q_count + q] = (from_halo ? -1.0 : 1.0) * encoded(global(v), q);
  }
  return expected;
}

/// Empty when `field` holds `expected` everywhere; else how many values differ and the first few.
template <class FieldType>
std::string compare(const FieldType& field, const std::vector<double>& expected) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.view());
  const int q_count = field.components();
  std::ostringstream report;
  int wrong = 0;
  for (index_t v = 0; v < field.voxels(); ++v) {
    for (int q = 0; q < q_count; ++q) {
      const double got = host(field.mapping().offset(v, q)), want = expected[std::size_t(v) * q_count + q];
      if (got == want) continue;
      if (wrong < 5) report << " (voxel " << v << ", q " << q << "): got " << got << ", want " << want << ";";
      ++wrong;
    }
  }
  return wrong == 0 ? std::string() : std::to_string(wrong) + " wrong values:" + report.str();
}

}  // namespace karman::test
