#pragma once
/// \file commands.hpp
/// Each `karman` subcommand or top-level action registers itself on the CLI11 app.

#include <CLI/CLI.hpp>

namespace karman::app {

/// Prints Kokkos version, backends, device, memory and threads.
void print_backend_info();

}  // namespace karman::app
