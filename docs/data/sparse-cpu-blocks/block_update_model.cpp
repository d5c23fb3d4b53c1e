// A model of the CPU block update's memory behaviour (docs/performance.md §6.25, session 31): D3Q19 FP32
// SoA runs of 4^3 blocks in Z-order over a periodic box of 4 nb voxels an edge, a BGK-like collision
// vectorised across a block's 64 voxels, AB between two lattices. Variants: the collision reads the block's
// own runs directly (no pull: wrong physics, the same lines), copies them into an L1 tile first, pulls them
// through karman's BlockTile with every neighbour the block itself, or the real pull; with and without the
// prefetch hints of StreamCollide::prefetch_block (16 blocks ahead, reads and writes); and a software
// pipeline (the next block's pulls between this block's 8-voxel chunks). Not part of the build; against a
// checkout and a Kokkos install (header-only use of both):
//   g++ -O3 -march=x86-64-v3 -std=c++17 -fopenmp -I<checkout>/core/include -I<checkout>/solvers/include
//       -I<build>/core/include -I<kokkos>/include block_update_model.cpp -o model
//   OMP_NUM_THREADS=2 OMP_PROC_BIND=false ./model 32 10    # 128^3, 10 steps; ./model 8 40 for 32^3 (in cache)
#include <omp.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <karman/core/prefetch.hpp>
#include <karman/lbm/block_tile.hpp>
#include <karman/lbm/d3q19.hpp>
#include <utility>
#include <vector>

using namespace karman;
using L = lbm::D3Q19;
using Tile = lbm::BlockTile<3, 4>;
constexpr int Q = 19, V = 64;
int nb = 32;  // blocks per axis
long S;       // stream stride (floats)
float *src, *dst;
std::vector<int> table;  // 27 per block

template <class F, int... I>
inline __attribute__((always_inline)) void sfor(F&& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}

unsigned morton(unsigned x, unsigned y, unsigned z) {
  unsigned m = 0;
  for (int b = 0; b < 10; ++b)
    m |= ((x >> b) & 1u) << (3 * b) | ((y >> b) & 1u) << (3 * b + 1) | ((z >> b) & 1u) << (3 * b + 2);
  return m;
}

// The BGK-like collision of one voxel's populations, in place (relaxation rate 1.25).
inline __attribute__((always_inline)) void relax(float (&f)[Q]) {
  float r = 0, u[3] = {0, 0, 0};
#pragma GCC unroll 19
  for (int q = 0; q < Q; ++q) {
    r += f[q];
#pragma GCC unroll 3
    for (int d = 0; d < 3; ++d) u[d] += L::c(q, d) * f[q];
  }
  const float ir = 1.0f / r;
#pragma GCC unroll 3
  for (int d = 0; d < 3; ++d) u[d] *= ir;
  const float uu = 1.5f * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
#pragma GCC unroll 19
  for (int q = 0; q < Q; ++q) {
    const float cu = 3.0f * (L::c(q, 0) * u[0] + L::c(q, 1) * u[1] + L::c(q, 2) * u[2]);
    const float feq = float(L::w(q)) * r * (1.0f + cu + 0.5f * cu * cu - uu);
    f[q] += 1.25f * (feq - f[q]);
  }
}

template <int Mode, bool RH, bool WH>
__attribute__((noinline)) void step(float* __restrict in, float* __restrict out) {
  const int blocks = nb * nb * nb;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) {
    const int* row = table.data() + 27L * b;
    const long first = long(b) * V;
    if constexpr (RH || WH) {
      if (b + 16 < blocks) {
        const long ahead = long(b + 16) * V;
        for (int q = 0; q < Q; ++q)
          for (int k = 0; k < V; k += 16) {
            if (RH) prefetch<false>(reinterpret_cast<std::uintptr_t>(in + q * S + ahead + k));
            if (WH) prefetch<true>(reinterpret_cast<std::uintptr_t>(out + q * S + ahead + k));
          }
      }
    }
    alignas(64) float tile[Q][V];
    const float* from[Q];
    sfor(
        [&](auto qc) __attribute__((always_inline)) {
          constexpr int q = qc;
          if constexpr (Mode >= 2 && q != 0) {
            const auto run = [&](int n) { return in + q * S + long(Mode == 3 ? b : n) * V; };
            Tile::pull<L::c(q, 0), L::c(q, 1), L::c(q, 2)>(row, run, tile[q]);
            from[q] = tile[q];
          } else if constexpr (Mode == 1) {
            std::memcpy(tile[q], in + q * S + first, sizeof tile[q]);
            from[q] = tile[q];
          } else {
            from[q] = in + q * S + first;
          }
        },
        std::make_integer_sequence<int, Q>{});
#pragma omp simd
    for (int l = 0; l < V; ++l) {
      float f[Q];
#pragma GCC unroll 19
      for (int q = 0; q < Q; ++q) f[q] = from[q][l];
      relax(f);
#pragma GCC unroll 19
      for (int q = 0; q < Q; ++q) out[q * S + first + l] = f[q];
    }
  }
}

template <int Mode, bool RH, bool WH>
double run(int steps) {
  for (int s = 0; s < 2; ++s) step<Mode, RH, WH>(s % 2 ? dst : src, s % 2 ? src : dst);
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) step<Mode, RH, WH>(s % 2 ? dst : src, s % 2 ? src : dst);
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return double(nb * nb * nb) * V * steps / t / 1e6;
}

// Software-pipelined: while block b's 8 chunks collide from one tile, block b + 1's populations are pulled
// into the other, populations {c, c + 8, c + 16} after chunk c, so the next block's loads overlap this
// block's arithmetic.
template <bool Pull>
__attribute__((noinline)) void step_pipelined(float* __restrict in, float* __restrict out) {
  const int blocks = nb * nb * nb;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int lo = int(long(blocks) * t / nt), hi = int(long(blocks) * (t + 1) / nt);
    alignas(64) float tiles[2][Q][V];
    auto pull_one = [&](auto qc, int b, float(&tile)[Q][V]) __attribute__((always_inline)) {
      constexpr int q = qc;
      if constexpr (q != 0) {
        const int* row = table.data() + 27L * b;
        if constexpr (Pull) {
          const auto run = [&](int n) { return in + q * S + long(n) * V; };
          Tile::pull<L::c(q, 0), L::c(q, 1), L::c(q, 2)>(row, run, tile[q]);
        } else {
          std::memcpy(tile[q], in + q * S + long(b) * V, sizeof tile[q]);
        }
      }
    };
    if (lo < hi)
      sfor(
          [&](auto qc) __attribute__((always_inline)) { pull_one(qc, lo, tiles[lo & 1]); },
          std::make_integer_sequence<int, Q>{});
    for (int b = lo; b < hi; ++b) {
      float(&cur)[Q][V] = tiles[b & 1];
      float(&nxt)[Q][V] = tiles[(b + 1) & 1];
      const long first = long(b) * V;
      const bool more = b + 1 < hi;
      sfor(
          [&](auto cc) __attribute__((always_inline)) {
            constexpr int c = cc;
#pragma omp simd
            for (int l = c * 8; l < c * 8 + 8; ++l) {
              float f[Q];
#pragma GCC unroll 19
              for (int q = 0; q < Q; ++q) f[q] = q == 0 ? in[first + l] : cur[q][l];
              relax(f);
#pragma GCC unroll 19
              for (int q = 0; q < Q; ++q) out[q * S + first + l] = f[q];
            }
            if (more) {
              pull_one(std::integral_constant<int, c>{}, b + 1, nxt);
              pull_one(std::integral_constant<int, c + 8>{}, b + 1, nxt);
              if constexpr (c + 16 < Q) pull_one(std::integral_constant<int, c + 16>{}, b + 1, nxt);
            }
          },
          std::make_integer_sequence<int, 8>{});
    }
  }
}
template <bool Pull>
double run_pipelined(int steps) {
  for (int s = 0; s < 2; ++s) step_pipelined<Pull>(s % 2 ? dst : src, s % 2 ? src : dst);
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) step_pipelined<Pull>(s % 2 ? dst : src, s % 2 ? src : dst);
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return double(nb * nb * nb) * V * steps / t / 1e6;
}

int main(int argc, char** argv) {
  nb = argc > 1 ? atoi(argv[1]) : 32;
  const int steps = argc > 2 ? atoi(argv[2]) : 20;
  const long N = long(nb) * nb * nb * V;
  S = (N + 31) / 32 * 32;
  if ((S / 32) % 2 == 0) S += 32;
  for (float** p : {&src, &dst}) {
    const size_t bytes = size_t(Q) * S * 4;
    *p = static_cast<float*>(aligned_alloc(1 << 21, (bytes + (1 << 21) - 1) / (1 << 21) * (1 << 21)));
    madvise(*p, bytes, MADV_HUGEPAGE);
#pragma omp parallel for
    for (long i = 0; i < Q * S; ++i) (*p)[i] = float(L::w(int(i / S)));
  }
  // Z-order numbering of the blocks and the neighbour table.
  std::vector<unsigned> code(nb * nb * nb), order(nb * nb * nb);
  std::vector<std::pair<unsigned, int>> keys;
  for (int z = 0; z < nb; ++z)
    for (int y = 0; y < nb; ++y)
      for (int x = 0; x < nb; ++x) keys.push_back({morton(x, y, z), x + nb * (y + nb * z)});
  std::sort(keys.begin(), keys.end());
  std::vector<int> number(nb * nb * nb);
  for (int i = 0; i < int(keys.size()); ++i) number[keys[i].second] = i;
  table.resize(27L * nb * nb * nb);
  for (int z = 0; z < nb; ++z)
    for (int y = 0; y < nb; ++y)
      for (int x = 0; x < nb; ++x) {
        const int b = number[x + nb * (y + nb * z)];
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int n = number[(x + dx + nb) % nb + nb * ((y + dy + nb) % nb + nb * ((z + dz + nb) % nb))];
              table[27L * b + (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)] = n;
            }
      }
  auto show = [&](const char* name, double m) { std::printf("%-34s %8.1f MLUPS\n", name, m); };
  for (int rep = 0; rep < 2; ++rep) {
    show("direct, no hints", run<0, false, false>(steps));
    show("direct, read+write hints", run<0, true, true>(steps));
    show("tile copy, no hints", run<1, false, false>(steps));
    show("tile copy, read+write hints", run<1, true, true>(steps));
    show("pull self, no hints", run<3, false, false>(steps));
    show("pull self, read+write hints", run<3, true, true>(steps));
    show("pull, no hints", run<2, false, false>(steps));
    show("pull, read+write hints", run<2, true, true>(steps));
    show("pull, pipelined", run_pipelined<true>(steps));
  }
}
