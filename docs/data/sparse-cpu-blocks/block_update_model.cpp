// A model of the CPU block update's memory behaviour (docs/performance.md §6.25, session 31): D3Q19 FP32
// SoA runs of 4^3 blocks in Z-order over a periodic box of 4 nb voxels an edge, a BGK-like collision
// vectorised across a block's 64 voxels, AB between two lattices. Variants: the collision reads the block's
// own runs directly (no pull: wrong physics, the same lines), copies them into an L1 tile first, pulls them
// through karman's BlockTile with every neighbour the block itself, or the real pull; with and without the
// prefetch hints of StreamCollide::prefetch_block (16 blocks ahead, reads and writes); and a software
// pipeline (the next block's pulls between this block's 8-voxel chunks). Session 32 (§6.26) added: the
// collision on 8-lane vectors read straight from the own runs, its 8 chunks a loop or unrolled; and the
// pull as a loop over its stores, each looking its rows' sources up in a compile-time table. Not part of
// the build; against a checkout and a Kokkos install (header-only use of both):
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
#include <karman/core/block_sparse_grid.hpp>
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

// The BGK-like collision of one voxel's populations, in place (relaxation rate 1.25); F is float or an
// 8-lane vector.
template <class F>
inline __attribute__((always_inline)) void relax(F (&f)[Q]) {
  F r = f[0], u[3] = {F{}, F{}, F{}};
#pragma GCC unroll 19
  for (int q = 1; q < Q; ++q) r += f[q];
#pragma GCC unroll 19
  for (int q = 0; q < Q; ++q) {
#pragma GCC unroll 3
    for (int d = 0; d < 3; ++d) {
      if (L::c(q, d) == 1) u[d] += f[q];
      if (L::c(q, d) == -1) u[d] -= f[q];
    }
  }
  const F ir = 1.0f / r;
#pragma GCC unroll 3
  for (int d = 0; d < 3; ++d) u[d] *= ir;
  const F uu = 1.5f * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
#pragma GCC unroll 19
  for (int q = 0; q < Q; ++q) {
    const F cu = 3.0f * (float(L::c(q, 0)) * u[0] + float(L::c(q, 1)) * u[1] + float(L::c(q, 2)) * u[2]);
    const F feq = float(L::w(q)) * r * (1.0f + cu + 0.5f * cu * cu - uu);
    f[q] += 1.25f * (feq - f[q]);
  }
}

typedef float v8 __attribute__((vector_size(32)));
typedef float v4 __attribute__((vector_size(16)));

// For each of a tile's 16 rows pulled by c: the table direction of the block holding its source row and of
// the block its entering x value comes from, and the source row's first value in their runs.
struct RowSources {
  int dir[16], edge[16], off[16];
};
constexpr RowSources row_sources(int cx, int cy, int cz) {
  RowSources t{};
  for (int r = 0; r < 16; ++r) {
    const int ys = (r & 3) - cy, zs = (r >> 2) - cz;
    const int oy = ys < 0 ? -1 : (ys >= 4 ? 1 : 0), oz = zs < 0 ? -1 : (zs >= 4 ? 1 : 0);
    t.dir[r] = Tile::shape::direction(0, oy, oz);
    t.edge[r] = Tile::shape::direction(-cx, oy, oz);
    t.off[r] = (ys - 4 * oy) * 4 + (zs - 4 * oz) * 16;
  }
  return t;
}
template <int cx, int cy, int cz>
inline constexpr RowSources sources_of = row_sources(cx, cy, cz);

// Row r of the tile pulled by (cx, .., ..) whose sources are t.
template <int cx>
inline __attribute__((always_inline)) v4 load_row(const int* row, const float* base, const RowSources& t, int r) {
  v4 h;
  std::memcpy(&h, base + long(row[t.dir[r]]) * V + t.off[r], 16);
  if constexpr (cx != 0) {
    v4 e;
    std::memcpy(&e, base + long(row[t.edge[r]]) * V + t.off[r], 16);
    if constexpr (cx == 1) h = __builtin_shufflevector(h, e, 7, 0, 1, 2);
    if constexpr (cx == -1) h = __builtin_shufflevector(h, e, 1, 2, 3, 4);
  }
  return h;
}

// BlockTile::pull as a loop over its 8 two-row stores (not unrolled): each load of the loop is one
// instruction a block. With cy = 0 both rows of a store are consecutive rows of one block: one load.
template <int cx, int cy, int cz>
inline __attribute__((always_inline)) void pull_rolled(const int* row, const float* base, float* tile) {
  constexpr const RowSources& t = sources_of<cx, cy, cz>;
#pragma GCC unroll 1
  for (int c = 0; c < 8; ++c) {
    v8 pair;
    if constexpr (cy == 0) {
      std::memcpy(&pair, base + long(row[t.dir[2 * c]]) * V + t.off[2 * c], 32);
      if constexpr (cx != 0) {
        v8 e;
        std::memcpy(&e, base + long(row[t.edge[2 * c]]) * V + t.off[2 * c], 32);
        if constexpr (cx == 1) pair = __builtin_shufflevector(pair, e, 11, 0, 1, 2, 15, 4, 5, 6);
        if constexpr (cx == -1) pair = __builtin_shufflevector(pair, e, 1, 2, 3, 8, 5, 6, 7, 12);
      }
    } else {
      const v4 a = load_row<cx>(row, base, t, 2 * c), b = load_row<cx>(row, base, t, 2 * c + 1);
      pair = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
    }
    std::memcpy(tile + 8 * c, &pair, 32);
  }
}

// The collision on 8-lane vectors read straight from the block's own runs (no pull, as Mode 0), chunk c.
inline __attribute__((always_inline)) void collide_chunk(const float* in, float* out, long first, int c) {
  v8 f[Q];
#pragma GCC unroll 19
  for (int q = 0; q < Q; ++q) std::memcpy(&f[q], in + q * S + first + 8 * c, 32);
  relax(f);
#pragma GCC unroll 19
  for (int q = 0; q < Q; ++q) std::memcpy(out + q * S + first + 8 * c, &f[q], 32);
}

// Mode 0: direct; 1: tile copy; 2: real pull; 3: pull with every neighbour the block itself; 4: 8-lane
// vectors, a loop over the chunks; 5: the same, the chunks unrolled; 6: pull_rolled.
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
    if constexpr (Mode == 4) {
#pragma GCC unroll 1
      for (int c = 0; c < 8; ++c) collide_chunk(in, out, first, c);
      continue;
    } else if constexpr (Mode == 5) {
      sfor(
          [&](auto c) __attribute__((always_inline)) { collide_chunk(in, out, first, c); },
          std::make_integer_sequence<int, 8>{});
      continue;
    }
    alignas(64) float tile[Q][V];
    const float* from[Q];
    sfor(
        [&](auto qc) __attribute__((always_inline)) {
          constexpr int q = qc;
          if constexpr (Mode == 6 && q != 0) {
            pull_rolled<L::c(q, 0), L::c(q, 1), L::c(q, 2)>(row, in + q * S, tile[q]);
            from[q] = tile[q];
          } else if constexpr ((Mode == 2 || Mode == 3) && q != 0) {
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

// MLUPS of `steps` AB steps of `step(in, out)` after two untimed ones.
template <class Step>
double time_steps(Step step, int steps) {
  for (int s = 0; s < 2; ++s) step(s % 2 ? dst : src, s % 2 ? src : dst);
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) step(s % 2 ? dst : src, s % 2 ? src : dst);
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return double(nb * nb * nb) * V * steps / t / 1e6;
}
template <int Mode, bool RH, bool WH>
double run(int steps) {
  return time_steps(step<Mode, RH, WH>, steps);
}

// Software-pipelined: while block b's 8 chunks collide from one tile, block b + 1's populations are pulled
// into the other, populations {c, c + 8, c + 16} after chunk c, so the next block's loads overlap this
// block's arithmetic.
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
        const auto run = [&](int n) { return in + q * S + long(n) * V; };
        Tile::pull<L::c(q, 0), L::c(q, 1), L::c(q, 2)>(row, run, tile[q]);
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
  std::vector<std::pair<std::uint64_t, int>> keys;
  for (int z = 0; z < nb; ++z)
    for (int y = 0; y < nb; ++y)
      for (int x = 0; x < nb; ++x) keys.push_back({detail::morton_key(x, y, z), x + nb * (y + nb * z)});
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
              table[27L * b + Tile::shape::direction(dx, dy, dz)] = n;
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
    show("pull, pipelined", time_steps(step_pipelined, steps));
    show("vectors, chunk loop, no hints", run<4, false, false>(steps));
    show("vectors, chunks unrolled, no hints", run<5, false, false>(steps));
    show("pull as a loop, no hints", run<6, false, false>(steps));
    show("pull as a loop, read+write hints", run<6, true, true>(steps));
  }
}
