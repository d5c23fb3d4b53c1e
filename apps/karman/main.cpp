// The karman command line: one executable, one subcommand per case (DESIGN.md "Apps").
#include "commands.hpp"

#include <karman/core/error.hpp>
#include <karman/core/version.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"Karman: portable lattice Boltzmann solver on Kokkos", "karman"};
  app.set_version_flag("--version",
                       std::string("karman ") + KARMAN_VERSION_STRING + " (commit " + KARMAN_GIT_COMMIT + ")");
  bool show_backend = false;
  app.add_flag("--backend-info", show_backend, "Print Kokkos version, backends, device, memory and threads");
  app.allow_extras(false);
  app.footer("Kokkos options (--kokkos-num-threads=N, --kokkos-device-id=N, ...) are passed to Kokkos.");

  // Kokkos removes its own --kokkos-* arguments before CLI11 sees the rest.
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    app.parse(argc, argv);
    if (show_backend) karman::app::print_backend_info();
    if (!show_backend && app.get_subcommands().empty()) std::printf("%s", app.help().c_str());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "karman: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
