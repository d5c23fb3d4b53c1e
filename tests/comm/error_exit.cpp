// The error path of a karman run under mpirun (a rank that hits bad input or an
// error makes every rank exit non-zero with one clear message; no hang), driven by
// run_error_exit.cmake:
//   error_exit abort <dir>       the last rank throws inside the time loop while the others wait
//                                for it in MPI: abort_all must end them all;
//   error_exit collective <dir>  only the last rank finds the input bad before the time loop:
//                                every rank must leave main with 1, rank 0 printing the message.
// Each rank that leaves main normally writes its exit code to <dir>/rank<r>.exit for the script.
#include <karman/comm/collective_error.hpp>
#include <karman/comm/mpi_context.hpp>
#include <karman/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <fstream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  karman::comm::MpiContext mpi(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  const std::string dir = argc > 2 ? argv[2] : ".";
  const int code = karman::comm::run_guarded(mpi.comm(), [&] {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const bool last = mpi.rank() == mpi.size() - 1;
    if (mode == "collective") {
      karman::comm::run_collective(mpi.comm(), [&] {
        if (last) throw karman::Error("deliberate bad input: tau = 0.4 out of range (0.5, 10]");
      });
    } else if (mode == "abort") {
      if (last) throw std::runtime_error("deliberate failure inside the time loop");
      // The other ranks wait for the failing one as a halo exchange would: forever, unless aborted.
      MPI_Barrier(mpi.comm());
    } else {
      throw karman::comm::CollectiveError("error_exit: mode '" + mode + "' not one of abort|collective", 0);
    }
    return 0;
  });
  std::ofstream(dir + "/rank" + std::to_string(mpi.rank()) + ".exit") << code << '\n';
  return code;
}
