#pragma once
/// \file comm.hpp
/// Everything of Karman::comm in one include (a build with MPI; without it, ranks.hpp and
/// halo_transport.hpp are all).

#include <karman/comm/cartesian_decomposition.hpp>
#include <karman/comm/collective_error.hpp>
#include <karman/comm/comm_stats.hpp>
#include <karman/comm/device_memory.hpp>
#include <karman/comm/exchange_method.hpp>
#include <karman/comm/gpu_aware.hpp>
#include <karman/comm/halo_pack.hpp>
#include <karman/comm/halo_transport.hpp>
#include <karman/comm/message_plan.hpp>
#include <karman/comm/mpi_context.hpp>
#include <karman/comm/mpi_datatype.hpp>
#include <karman/comm/mpi_halo_exchanger.hpp>
#include <karman/comm/plan_check.hpp>
#include <karman/comm/ranks.hpp>
#include <karman/comm/slab_decomposition.hpp>
