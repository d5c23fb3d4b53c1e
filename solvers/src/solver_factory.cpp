#include <karman/lbm/solver_factory.hpp>

#include <karman/core/error.hpp>
#include <karman/lbm/compiled_variants.hpp>
#include <karman/lbm/refined_solver_factory.hpp>
#include <karman/lbm/solver_variant.hpp>
#include <karman/lbm/sparse_block_edge.hpp>
#include <karman/lbm/sparse_solver_factory.hpp>
#include <karman/lbm/variants.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace karman::lbm {
namespace {

#ifndef KARMAN_BUILD_DIRECTORY
#define KARMAN_BUILD_DIRECTORY "<your build folder>"
#endif

/// The triples of a compiled-variant table (sentinels of empty names left out).
template <std::size_t N>
std::vector<std::string> triples_of(const CompiledVariant (&table)[N]) {
  std::vector<std::string> triples;
  for (const CompiledVariant& v : table)
    if (!v.lattice.empty())
      triples.push_back(std::string(v.lattice) + "/" + std::string(v.precision) + "/" + std::string(v.layout));
  return triples;
}

/// "a, b, c" (or "none").
std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text.empty() ? "none" : text;
}

/// Why `variant` cannot run here (on `grid`, when not slabs) and the exact configure line that
/// adds it to this build: `option` set to what the build holds plus `variant`, or the full set.
template <std::size_t N>
std::string not_compiled(const std::string& what, const std::string& variant, const std::string& grid,
                         const CompiledVariant (&table)[N], const char* option) {
  std::vector<std::string> triples = triples_of(table);
  const std::string held = joined(triples, ", ");
  triples.push_back(variant);
  return what + " " + variant + grid + " is not compiled into this build of Karman::lbm (it holds " + held +
         "); add it with\n  cmake -B " KARMAN_BUILD_DIRECTORY " -D" + option + "=\"" + joined(triples, ";") +
         "\"\nor compile every variant with\n  cmake -B " KARMAN_BUILD_DIRECTORY
         " -DKARMAN_VARIANT_SET=full\nthen rebuild (cmake --build " KARMAN_BUILD_DIRECTORY ")";
}

/// "d3q19/float/soa": the lattice/precision/layout of `v`.
std::string variant_name(const Variant& v) {
  return v.lattice.name() + "/" + v.precision.name() + "/" + v.layout.name();
}

/// Variant, box and relaxation checks shared by the dense and the block-sparse factory (each
/// name was checked when it was set: Choice).
void check_setup(const SolverSetup& setup, const char* where) {
  const Variant& v = setup.variant;
  require_collision_for(v.collision.name(), v.lattice.name());
  validate(setup.global, where);
  const int dim = setup.global.dimension();
  if (lattice_dimension(v.lattice.name()) != dim) {
    throw Error("lattice '" + v.lattice.name() + "' does not match a " + std::to_string(dim) + "D box (" +
                std::to_string(setup.global.nx) + "x" + std::to_string(setup.global.ny) + "x" +
                std::to_string(setup.global.nz) + "); use " + (dim == 2 ? "d2q9" : "d3q19 or d3q27"));
  }
  const double omega = setup.relaxation.omega;
  if (!(omega > 0.0 && omega < 2.0)) {
    throw Error("relaxation rate omega = " + std::to_string(omega) +
                " out of range (0, 2), i.e. tau = " + std::to_string(1.0 / omega) + " must be > 1/2");
  }
}

/// Calls f(lattice, precision, layout) with the tags of the variant `v` names (variants.hpp),
/// the types as tag_type<decltype(...)>: the one runtime-to-template step of every factory.
template <class F>
auto dispatch_variant(const Variant& v, F&& f) {
  return dispatch<Lattices>(v.lattice, [&](auto lattice) {
    return dispatch<Precisions>(v.precision, [&](auto precision) {
      return dispatch<Layouts>(v.layout, [&](auto layout) { return f(lattice, precision, layout); });
    });
  });
}

}  // namespace

void require_compiled(const Variant& v, CompiledGrid grid) {
  const std::string l = v.lattice.name(), p = v.precision.name(), layout = v.layout.name();
  switch (grid) {
    case CompiledGrid::slabs:
      if (!is_compiled(l, p, layout))
        throw Error(not_compiled("solver", variant_name(v), "", compiled_variants, "KARMAN_VARIANTS"));
      return;
    case CompiledGrid::cartesian_blocks:
      if (!is_block_compiled(l, p, layout)) {
        throw Error(not_compiled("solver", variant_name(v),
                                 " for Cartesian blocks (--ranks-per-axis; leave it out for slabs)",
                                 compiled_block_variants, "KARMAN_CARTESIAN_VARIANTS"));
      }
      return;
    case CompiledGrid::block_sparse:
      if (!is_sparse_compiled(l, p, layout)) {
        throw Error(not_compiled("block-sparse solver", variant_name(v), "", compiled_sparse_variants,
                                 "KARMAN_SPARSE_VARIANTS"));
      }
      return;
    case CompiledGrid::refined:
      if (!is_refined_compiled(l, p, layout)) {
        throw Error(not_compiled("refined-grid solver", variant_name(v), "", compiled_refined_variants,
                                 "KARMAN_REFINED_VARIANTS"));
      }
      return;
  }
}

std::unique_ptr<FlowSolver> make_solver(const SolverSetup& setup) {
  check_setup(setup, "karman::lbm::make_solver");
  const Variant& v = setup.variant;
  const std::array<int, 3>& grid = setup.process_grid;
  if (grid[0] > 0 || grid[1] > 0 || grid[2] > 0) {
    const std::string text = std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]);
    if (grid[0] < 1 || grid[1] < 1 || grid[2] < 1 || grid[0] * grid[1] * grid[2] != setup.ranks) {
      throw Error("karman::lbm::make_solver: process grid " + text + " for " + std::to_string(setup.ranks) +
                  " rank(s); accepted: counts of at least 1 whose product is the rank count");
    }
#if KARMAN_ENABLE_MPI
    return dispatch_variant(v, [&](auto lattice, auto precision, auto layout) -> std::unique_ptr<FlowSolver> {
      using L = tag_type<decltype(lattice)>;
      using T = tag_type<decltype(precision)>;
      using Layout = tag_type<decltype(layout)>;
      if constexpr (is_block_compiled(L::name, VariantName<T>::value, Layout::name)) {
        return detail::make_block_solver_variant<L, T, Layout>(setup);
      } else {
        throw Error(not_compiled("solver", variant_name(v),
                                 " for Cartesian blocks (--ranks-per-axis; leave it out for slabs)",
                                 compiled_block_variants, "KARMAN_CARTESIAN_VARIANTS"));
      }
    });
#else
    throw Error("karman::lbm::make_solver: the process grid " + text +
                " (--ranks-per-axis) needs a build with MPI (KARMAN_ENABLE_MPI=ON)");
#endif
  }
  return dispatch_variant(v, [&](auto lattice, auto precision, auto layout) -> std::unique_ptr<FlowSolver> {
    using L = tag_type<decltype(lattice)>;
    using T = tag_type<decltype(precision)>;
    using Layout = tag_type<decltype(layout)>;
    if constexpr (is_compiled(L::name, VariantName<T>::value, Layout::name)) {
      return detail::make_solver_variant<L, T, Layout>(setup);
    } else {
      throw Error(not_compiled("solver", variant_name(v), "", compiled_variants, "KARMAN_VARIANTS"));
    }
  });
}

std::unique_ptr<FlowSolver> make_sparse_solver(const SolverSetup& setup, BlockGrouping grouping) {
  check_setup(setup, "karman::lbm::make_sparse_solver");
#if !KARMAN_ENABLE_MPI
  if (setup.ranks > 1) {
    throw Error("karman::lbm::make_sparse_solver: " + std::to_string(setup.ranks) +
                " ranks need a build with MPI (KARMAN_ENABLE_MPI=ON)");
  }
#endif
  const Variant& v = setup.variant;
  return dispatch<Lattices>(v.lattice, [&](auto lattice) {
    using L = tag_type<decltype(lattice)>;
    // Ranks divide the planes of blocks along the slowest axis, each at least two (a shared
    // plane towards each neighbour).
    constexpr int axis = L::D - 1, edge = sparse_block_edge<L::D>;
    const int planes = (setup.global.extent(axis) + edge - 1) / edge;
    if (setup.ranks > 1 && planes < 2 * setup.ranks) {
      throw Error("karman::lbm::make_sparse_solver: " + std::to_string(setup.ranks) + " ranks share the " +
                  std::to_string(planes) + " block planes (of " + std::to_string(edge) + " voxels) along " +
                  "xyz"[axis] + ", and each rank needs at least 2; use at most " +
                  std::to_string(std::max(planes / 2, 1)) + " ranks or a larger box");
    }
    return dispatch<Precisions>(v.precision, [&](auto precision) {
      using T = tag_type<decltype(precision)>;
      return dispatch<Layouts>(v.layout, [&](auto layout) -> std::unique_ptr<FlowSolver> {
        using Layout = tag_type<decltype(layout)>;
        if constexpr (is_sparse_compiled(L::name, VariantName<T>::value, Layout::name)) {
          return detail::make_sparse_solver_variant<L, T, Layout>(setup, grouping);
        } else {
          throw Error(not_compiled("block-sparse solver", variant_name(v), "", compiled_sparse_variants,
                                   "KARMAN_SPARSE_VARIANTS"));
        }
      });
    });
  });
}

int refined_block_edge(int dimension) { return dimension == 3 ? sparse_block_edge<3> : sparse_block_edge<2>; }

namespace {

/// make_refined_solver's checks of the setup and the refinement.
void check_refined_setup(const SolverSetup& setup, const Refinement& refinement, const char* where) {
  check_setup(setup, where);
  const int most = RefinedLevels<3>::max_levels;
  if (refinement.levels < 1 || refinement.levels > most) {
    throw Error(std::string(where) + ": " + std::to_string(refinement.levels) + " levels; accepted: 1 to " +
                std::to_string(most));
  }
  const int dim = setup.global.dimension();
  const int tile = refined_box_multiple(dim, refinement.levels);
  for (int a = 0; a < dim; ++a) {
    const int n = setup.global.extent(a);
    if (n % tile != 0) {
      throw Error(std::string(where) + ": the box is " + std::to_string(n) + " voxels along " + "xyz"[a] + "; with " +
                  std::to_string(refinement.levels) + " levels it must be a multiple of " + std::to_string(tile) +
                  " (coarsest blocks of " + std::to_string(refined_block_edge(dim)) + " voxels, each " +
                  std::to_string(tile) + " finest voxels), e.g. " + std::to_string(std::max(tile, n / tile * tile)) +
                  " or " + std::to_string((n / tile + 1) * tile));
    }
  }
}

}  // namespace

namespace {
/// refined_grid_facts for levels of Dim dimensions.
template <int Dim>
RefinedGridFacts grid_facts(const SolverSetup& setup, const Refinement& refinement) {
  auto levels =
      std::make_shared<const RefinedLevels<Dim>>(refined_levels<Dim>(setup, refinement, refined_block_edge(Dim)));
  RefinedGridFacts facts;
  facts.leaf_voxels = leaf_voxels(*levels);
  facts.voxel_note = [levels](int x, int y, int z) -> std::string {
    const int l = levels->leaf_level({x, y, z});
    if (l < 0) return "";
    return "level " + std::to_string(l) + " (of " + std::to_string(levels->levels()) + ", 0 the finest), its voxel (" +
           std::to_string(x >> l) + ", " + std::to_string(y >> l) + ", " + std::to_string(z >> l) + ")";
  };
  return facts;
}
}  // namespace

RefinedGridFacts refined_grid_facts(const SolverSetup& setup, const Refinement& refinement) {
  check_refined_setup(setup, refinement, "karman::lbm::refined_grid_facts");
  if (setup.global.dimension() == 3) return grid_facts<3>(setup, refinement);
  return grid_facts<2>(setup, refinement);
}

std::unique_ptr<FlowSolver> make_refined_solver(const SolverSetup& setup, const Refinement& refinement) {
  check_refined_setup(setup, refinement, "karman::lbm::make_refined_solver");
  const Variant& v = setup.variant;
  return dispatch_variant(v, [&](auto lattice, auto precision, auto layout) -> std::unique_ptr<FlowSolver> {
    using L = tag_type<decltype(lattice)>;
    using T = tag_type<decltype(precision)>;
    using Layout = tag_type<decltype(layout)>;
    if constexpr (is_refined_compiled(L::name, VariantName<T>::value, Layout::name)) {
      return detail::make_refined_solver_variant<L, T>(setup, refinement);
    } else {
      throw Error(not_compiled("refined-grid solver", variant_name(v), "", compiled_refined_variants,
                               "KARMAN_REFINED_VARIANTS"));
    }
  });
}

}  // namespace karman::lbm
