// Session 33: block fill and sector fill of 4^3 and 8^3 blocks on the bench's 256^3 samples
// (karman bench --grid sparse --n 256: sphere radius 16, seed 1; array cell 64). Not part of the
// build; compiled against karman_core and Kokkos by hand (docs/performance.md "Sectors a pull asks for").
// The sector fill is perf::sector_fill<B>'s (sparse_bench.hpp), written out here because BlockShape,
// which that one uses for the local coordinates, refuses 8^3 blocks (one 64-bit mask a block).
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <karman/core/geometry/shapes.hpp>
#include <karman/core/geometry/sphere_pack.hpp>
using namespace karman;
template <int B>
void report(const char* name, const geometry::VoxelImage& img) {
  const Extents& e = img.extents;
  const int words = 8;  // FP32, 32-byte sectors
  long fluid = 0, blocks = 0, boundary = 0, live = 0;
  for (int bz = 0; bz < e.nz; bz += B)
    for (int by = 0; by < e.ny; by += B)
      for (int bx = 0; bx < e.nx; bx += B) {
        int in_block = 0;
        for (int first = 0; first < B * B * B; first += words) {
          int in_sector = 0;
          for (int l = first; l < first + words; ++l) {
            int x = bx + l % B, y = by + l / B % B, z = bz + l / (B * B);
            if (!img.is_solid(x, y, z)) ++in_sector;
          }
          in_block += in_sector;
          live += in_sector > 0;
        }
        fluid += in_block;
        blocks += in_block > 0;
        boundary += in_block > 0 && in_block < B * B * B;
      }
  std::printf(
      "%-8s B=%d  fluid %ld  stored blocks %ld (boundary %ld, %.2f)  fluid/stored voxel %.3f  sector fill %.3f\n", name,
      B, fluid, blocks, boundary, double(boundary) / blocks, double(fluid) / (blocks * B * B * B),
      double(fluid) / (live * words));
}
int main(int argc, char** argv) {
  Kokkos::ScopeGuard g(argc, argv);
  const Extents box{256, 256, 256};
  for (double p : {0.5, 0.3, 0.1}) {
    geometry::RandomPackOptions pack;
    pack.porosity = p;
    pack.radius_min = pack.radius_max = 16;
    pack.seed = 1;
    const auto r = geometry::random_sphere_pack(box, pack).image;
    const auto a = geometry::simple_cubic_array_at_porosity(box, 64, p).image;
    std::printf("porosity %.1f\n", p);
    report<4>("random", r);
    report<8>("random", r);
    report<4>("array", a);
    report<8>("array", a);
  }
}
