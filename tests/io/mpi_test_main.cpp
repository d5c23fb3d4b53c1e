// GoogleTest entry point for tests run under mpiexec: MPI outlives Kokkos, which outlives the tests,
// and every rank exits with the same code so that a failure on any rank fails the run.
#include <gtest/gtest.h>
#include <mpi.h>
#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    result = RUN_ALL_TESTS();
  }
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
