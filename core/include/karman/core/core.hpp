#pragma once
/// \file core.hpp
/// Everything of Karman::core in one include.

#include <karman/core/backend_traits.hpp>
#include <karman/core/block_grid_view.hpp>
#include <karman/core/block_neighbours.hpp>
#include <karman/core/block_shape.hpp>
#include <karman/core/block_sparse_grid.hpp>
#include <karman/core/error.hpp>
#include <karman/core/extents.hpp>
#include <karman/core/field.hpp>
#include <karman/core/field_value.hpp>
#include <karman/core/for_each.hpp>
#include <karman/core/for_each_block.hpp>
#include <karman/core/geometry/fluid_path.hpp>
#include <karman/core/geometry/raw_image.hpp>
#include <karman/core/geometry/shapes.hpp>
#include <karman/core/geometry/sphere_pack.hpp>
#include <karman/core/geometry/stl.hpp>
#include <karman/core/geometry/voxel_image.hpp>
#include <karman/core/group.hpp>
#include <karman/core/halo_plan.hpp>
#include <karman/core/kokkos_compat.hpp>
#include <karman/core/layouts.hpp>
#include <karman/core/memory_block.hpp>
#include <karman/core/neighbours.hpp>
#include <karman/core/partition.hpp>
#include <karman/core/periodic_exchange.hpp>
#include <karman/core/profiling_region.hpp>
#include <karman/core/version.hpp>
