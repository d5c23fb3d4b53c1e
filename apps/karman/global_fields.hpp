#pragma once
/// \file global_fields.hpp
/// The ranks' owned moments brought together: host copies of a rank's box, every rank's box, and
/// values gathered on rank 0 in the order of the whole box (x fastest), for field files and the
/// cases' outputs.

#include <karman/comm/ranks.hpp>
#include <karman/lbm/flow_solver.hpp>
#include <karman/lbm/global_fields.hpp>

#include <cstddef>
#include <vector>

namespace karman::app {

/// The final density and velocity of the whole box on rank 0 (the solver layer's type, which the
/// cases' analyses read).
using lbm::GlobalFields;

/// Host copies of this rank's owned moments in its box's order.
struct HostSlab {
  std::vector<double> rho, u[3];
};

HostSlab to_host(const lbm::MomentFields& m);

/// Every rank's owned box, on every rank (a collective call).
std::vector<lbm::OwnedBox> gather_boxes(const comm::Ranks& ranks, const lbm::OwnedBox& mine);

/// Every rank's owned values (in its box's order) on rank 0 in global order, x fastest; empty on
/// the other ranks. Slabs arrive in global order already; a block's values are placed by its box.
std::vector<double> gather_in_global_order(const comm::Ranks& ranks, const std::vector<lbm::OwnedBox>& boxes,
                                           const std::vector<double>& mine);

}  // namespace karman::app
