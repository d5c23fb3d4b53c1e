// GoogleTest entry point for tests run under mpiexec: MPI outlives Kokkos, which outlives the tests,
// and every rank exits with the same code so that a failure on any rank fails the run.
#include <karman/comm/ranks.hpp>

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
  const int worst = int(karman::comm::Ranks(MPI_COMM_WORLD).max(result));
  MPI_Finalize();
  return worst;
}
