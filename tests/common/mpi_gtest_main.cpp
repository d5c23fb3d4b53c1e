// GoogleTest entry point for tests under mpirun. MPI is initialised before Kokkos and finalised
// after it; every rank runs every test; rank 0 prints the usual report and the other ranks print
// only their failed checks, prefixed with their rank; every rank exits non-zero when any failed.
#include <karman/comm/mpi_context.hpp>
#include <karman/comm/ranks.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <cstdio>

namespace {

/// Prints a failed check of a rank other than 0, which has no report of its own.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : m_rank(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", m_rank, result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.message());
    std::fflush(stderr);
  }

 private:
  int m_rank;
};

}  // namespace

int main(int argc, char** argv) {
  karman::comm::MpiContext mpi(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    if (mpi.rank() != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new RankFailurePrinter(mpi.rank()));
    }
    result = RUN_ALL_TESTS();
  }
  return karman::comm::Ranks(mpi.comm()).any(result != 0) ? 1 : 0;
}
