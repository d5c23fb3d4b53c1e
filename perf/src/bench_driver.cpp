// `karman_bench_driver bench ...`: the bench subcommand alone, without the rest of the app.
#include <karman/perf/bench_command.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"Karman benchmark driver (the `karman bench` subcommand alone)", "karman_bench_driver"};
  app.require_subcommand(1);
  karman::perf::add_bench_command(app);
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "karman_bench_driver: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
