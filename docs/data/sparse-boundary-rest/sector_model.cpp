// The 32-byte sectors one AB step of D3Q19 FP32 on the block-sparse grid must move for a random
// sphere pack (docs/performance.md, "GPU: the boundary kernel for walls at rest"): each
// population's sectors holding a fluid voxel (written) or a fluid voxel's upstream source
// (read; a bounced population reads the voxel's own sector), with 4^3 blocks whose 64 voxels
// lie x fastest in each population's run, so a sector holds two 4-voxel rows. Not part of the
// build; against an installed Karman:
//   g++ -O2 -std=c++17 -fopenmp sector_model.cpp -I<prefix>/include -L<prefix>/lib -lkarman_core -lkokkoscore -ldl
//   ./a.out 256 0.3 16     # n, porosity, sphere radius (the bench's defaults at 256^3, seed 1)
#include <karman/core/geometry/sphere_pack.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
int n = 0;
std::vector<std::uint8_t> solid_voxel;
int wrap(int a) { return (a % n + n) % n; }
bool solid(int x, int y, int z) { return solid_voxel[(std::size_t(wrap(z)) * n + wrap(y)) * n + wrap(x)]; }
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: %s n porosity radius\n", argv[0]), 2;
  n = std::atoi(argv[1]);
  karman::geometry::RandomPackOptions o;
  o.porosity = std::atof(argv[2]);
  o.radius_min = o.radius_max = std::atof(argv[3]);
  const auto pack = karman::geometry::random_sphere_pack(karman::Extents{n, n, n}, o);
  solid_voxel.assign(std::size_t(n) * n * n, 0);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) solid_voxel[(std::size_t(z) * n + y) * n + x] = pack.image.is_solid(x, y, z);
  int c[19][3] = {{0, 0, 0}}, q = 1;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (int s = std::abs(dx) + std::abs(dy) + std::abs(dz); s == 1 || s == 2) {
          c[q][0] = dx, c[q][1] = dy, c[q][2] = dz;
          ++q;
        }
  const int nb = n / 4;
  const std::size_t blocks = std::size_t(nb) * nb * nb;
  auto block = [&](int x, int y, int z) { return (std::size_t(wrap(z) / 4) * nb + wrap(y) / 4) * nb + wrap(x) / 4; };
  auto sector = [&](int x, int y, int z) {
    return block(x, y, z) * 8 + std::size_t(wrap(x) % 4 + 4 * (wrap(y) % 4) + 16 * (wrap(z) % 4)) / 8;
  };
  auto bulk = [&](int x, int y, int z) {
    for (auto& ci : c)
      if (solid(x - ci[0], y - ci[1], z - ci[2])) return false;
    return true;
  };
  // A block is a boundary block unless all its voxels are fluid with fluid sources.
  std::vector<bool> boundary(blocks, false);
  for (int z = 0; z < n; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x)
        if (!bulk(x, y, z)) boundary[block(x, y, z)] = true;
  for (const bool only_boundary : {false, true}) {
    auto counted = [&](int x, int y, int z) { return !solid(x, y, z) && (!only_boundary || boundary[block(x, y, z)]); };
    std::vector<int> fluid_in(blocks * 8, 0);
    std::size_t fluid = 0, written = 0, partial = 0, read = 0;
    for (int z = 0; z < n; ++z)
      for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
          if (counted(x, y, z)) ++fluid, ++fluid_in[sector(x, y, z)];
    for (const int k : fluid_in) written += k > 0, partial += k > 0 && k < 8;
    std::vector<std::uint8_t> touched(blocks * 8);
    for (auto& ci : c) {
      std::fill(touched.begin(), touched.end(), 0);
      for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
          for (int x = 0; x < n; ++x)
            if (counted(x, y, z)) {
              const bool bounced = solid(x - ci[0], y - ci[1], z - ci[2]);
              touched[bounced ? sector(x, y, z) : sector(x - ci[0], y - ci[1], z - ci[2])] = 1;
            }
      for (const auto t : touched) read += t;
    }
    const double write_bytes = 19.0 * 32 * double(written), read_bytes = 32.0 * double(read);
    const double merge_bytes = 19.0 * 32 * double(partial), per_fluid = (read_bytes + write_bytes) / double(fluid);
    std::printf(
        "%s: %zu fluid voxels; reads %.0f MB, writes %.0f MB, %zu sectors a population written in part "
        "(%.0f MB if each costs a read); %.1f B per fluid voxel: bound %.2f of the box (%.2f with the merge reads)\n",
        only_boundary ? "boundary blocks" : "whole sample", fluid, read_bytes / 1e6, write_bytes / 1e6, partial,
        merge_bytes / 1e6, per_fluid, 152 / per_fluid, 152 / (per_fluid + merge_bytes / double(fluid)));
  }
}
