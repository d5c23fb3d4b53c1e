// What an AA odd step's shifted stores cost against an AB pull's shifted loads, on D3Q19's
// x-velocities (5 populations with c_x = +1, 5 with -1, 9 with 0), SoA planes of n^3 floats.
// Each kernel moves 19 floats in and 19 out per voxel; only where the x-shifted accesses fall:
//   ab_pull   : out[q][v] = in[q][v - c_q]              (shifted loads, aligned stores)
//   aa_even   : a[q][v] = g(a[q][v]) in place           (aligned loads and stores)
//   aa_odd    : a[q][v + c_q] = g(a[q][v + c_q]) in place (shifted loads and shifted stores)
//   copy      : out[q][v] = in[q][v]                    (aligned both)
// g adds a constant, so every value is used. Build: nvcc -O3 -arch=sm_90 shifted_access.cu
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

constexpr int Q = 19;
__constant__ int cx[Q] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};

template <int Mode>
__global__ void __launch_bounds__(256)
    kernel(const float* __restrict__ in, float* __restrict__ out, long long plane, int n) {
  const long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (v >= plane) return;
  const int x = int(v % n);
  float f[Q];
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    const int c = cx[q];
    const long long src =
        (Mode == 0 && x - c >= 0 && x - c < n) ? v - c : ((Mode == 2 && x + c >= 0 && x + c < n) ? v + c : v);
    f[q] = (Mode == 2 || Mode == 1 ? out : in)[q * plane + src];
  }
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    const int c = cx[q];
    const long long dst = (Mode == 2 && x + c >= 0 && x + c < n) ? v + c : v;
    out[q * plane + dst] = f[q] + 1.0f;
  }
}

int main() {
  const int n = 256;
  const long long plane = (long long)n * n * n;
  float *a, *b;
  cudaMalloc(&a, sizeof(float) * Q * plane);
  cudaMalloc(&b, sizeof(float) * Q * plane);
  cudaMemset(a, 0, sizeof(float) * Q * plane);
  cudaMemset(b, 0, sizeof(float) * Q * plane);
  const char* names[4] = {"ab_pull (shifted loads)", "aa_even (aligned, in place)",
                          "aa_odd (shifted loads and stores, in place)", "copy (aligned)"};
  const int blocks = int((plane + 255) / 256);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int rep = 0; rep < 2; ++rep)
    for (int mode = 0; mode < 4; ++mode) {
      std::vector<float> ms;
      for (int s = 0; s < 7; ++s) {
        cudaEventRecord(e0);
        for (int it = 0; it < 20; ++it) {
          if (mode == 0) kernel<0><<<blocks, 256>>>(a, b, plane, n);
          if (mode == 1) kernel<1><<<blocks, 256>>>(a, b, plane, n);
          if (mode == 2) kernel<2><<<blocks, 256>>>(a, b, plane, n);
          if (mode == 3) kernel<3><<<blocks, 256>>>(a, b, plane, n);
        }
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t;
        cudaEventElapsedTime(&t, e0, e1);
        ms.push_back(t / 20);
      }
      std::sort(ms.begin(), ms.end());
      const double t = ms[ms.size() / 2] * 1e-3;
      printf("%-46s %8.1f us  %7.1f GB/s (2 x 19 x 4 B per voxel)  %6.2f G voxels/s\n", names[mode], t * 1e6,
             2.0 * Q * 4 * plane / t / 1e9, plane / t / 1e9);
    }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
