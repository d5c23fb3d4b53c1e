// The error path of a karman run under mpirun (a rank that hits bad input or an
// error makes every rank exit non-zero with one clear message; no hang), driven by
// run_error_exit.cmake:
//   error_exit abort <dir>       the last rank throws inside the time loop while the others wait
//                                for it in MPI: Ranks::abort_all must end them all;
//   error_exit collective <dir>  only the last rank finds the input bad before the time loop:
//                                every rank must leave main with 1, rank 0 printing the message.
// Each rank that leaves main normally writes its exit code to <dir>/rank<r>.exit for the script.
#include <karman/comm/mpi_context.hpp>
#include <karman/comm/ranks.hpp>
#include <karman/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <fstream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  karman::comm::MpiContext mpi(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  const std::string dir = argc > 2 ? argv[2] : ".";
  const karman::comm::Ranks ranks(mpi.comm());
  const int code = ranks.run_guarded([&] {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const bool last = ranks.rank() == ranks.size() - 1;
    if (mode == "collective") {
      ranks.run([&] {
        if (last) throw karman::Error("deliberate bad input: tau = 0.4 out of range (0.5, 10]");
      });
    } else if (mode == "abort") {
      if (last) throw std::runtime_error("deliberate failure inside the time loop");
      // The other ranks wait for the failing one as a halo exchange would: forever, unless aborted.
      ranks.barrier();
    } else {
      throw karman::comm::CollectiveError("error_exit: mode '" + mode + "' not one of abort|collective", 0);
    }
    return 0;
  });
  std::ofstream(dir + "/rank" + std::to_string(ranks.rank()) + ".exit") << code << '\n';
  return code;
}
