// Probe (not in the tree): D3Q19 SoA AB pull on a CPU, hand-written AVX-512: copy, pure data movement
// and a BGK update, each with plain and streaming stores; argv: n, plane padding, prefetch distance.
// g++ -O3 -march=native -fopenmp probe_d3q19_ab.cpp && OMP_NUM_THREADS=2 ./a.out 128 0 64
#include <immintrin.h>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
static const int cx[19] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
static const int cy[19] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
static const int cz[19] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
static const float w[19] = {1.f / 3,  1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18,
                            1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36,
                            1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};
int n;
long NX, plane, stride;  // padded
float *A, *B;
int PD = 0;
template <bool NT, bool Collide>
void ab(const float* __restrict src, float* __restrict dst) {
  long off[19];
  for (int q = 0; q < 19; ++q) off[q] = q * stride - (cx[q] + cy[q] * NX + cz[q] * plane);
#pragma omp parallel for collapse(2) schedule(static)
  for (int z = 1; z < n - 1; ++z)
    for (int y = 1; y < n - 1; ++y) {
      long base = z * plane + y * NX;
      for (int x = 0; x < NX; x += 16) {
        long v = base + x;
        if (!Collide) {
          for (int q = 0; q < 19; ++q) {
            __m512 f = _mm512_loadu_ps(src + off[q] + v);
            if (NT)
              _mm512_stream_ps(dst + q * stride + v, f);
            else
              _mm512_store_ps(dst + q * stride + v, f);
          }
        } else {
          if (PD)
            for (int q = 0; q < 19; ++q) {
              _mm_prefetch((const char*)(src + off[q] + v + PD), _MM_HINT_T0);
            }
          __m512 f[19];
          for (int q = 0; q < 19; ++q) f[q] = _mm512_loadu_ps(src + off[q] + v);
          __m512 rho = f[0], ux = _mm512_setzero_ps(), uy = ux, uz = ux;
          for (int q = 1; q < 19; ++q) {
            rho = _mm512_add_ps(rho, f[q]);
            if (cx[q]) ux = cx[q] > 0 ? _mm512_add_ps(ux, f[q]) : _mm512_sub_ps(ux, f[q]);
            if (cy[q]) uy = cy[q] > 0 ? _mm512_add_ps(uy, f[q]) : _mm512_sub_ps(uy, f[q]);
            if (cz[q]) uz = cz[q] > 0 ? _mm512_add_ps(uz, f[q]) : _mm512_sub_ps(uz, f[q]);
          }
          __m512 ir = _mm512_div_ps(_mm512_set1_ps(1.f), rho);
          ux = _mm512_mul_ps(ux, ir);
          uy = _mm512_mul_ps(uy, ir);
          uz = _mm512_mul_ps(uz, ir);
          __m512 usq = _mm512_fmadd_ps(ux, ux, _mm512_fmadd_ps(uy, uy, _mm512_mul_ps(uz, uz)));
          const __m512 om = _mm512_set1_ps(0.6f);
          for (int q = 0; q < 19; ++q) {
            __m512 cu = _mm512_setzero_ps();
            if (cx[q]) cu = cx[q] > 0 ? _mm512_add_ps(cu, ux) : _mm512_sub_ps(cu, ux);
            if (cy[q]) cu = cy[q] > 0 ? _mm512_add_ps(cu, uy) : _mm512_sub_ps(cu, uy);
            if (cz[q]) cu = cz[q] > 0 ? _mm512_add_ps(cu, uz) : _mm512_sub_ps(cu, uz);
            __m512 feq = _mm512_mul_ps(_mm512_mul_ps(rho, _mm512_set1_ps(w[q])),
                                       _mm512_add_ps(_mm512_fmadd_ps(cu, _mm512_set1_ps(3.f), _mm512_set1_ps(1.f)),
                                                     _mm512_fmsub_ps(_mm512_mul_ps(cu, cu), _mm512_set1_ps(4.5f),
                                                                     _mm512_mul_ps(usq, _mm512_set1_ps(1.5f)))));
            __m512 r = _mm512_fmadd_ps(om, _mm512_sub_ps(feq, f[q]), f[q]);
            if (NT)
              _mm512_stream_ps(dst + q * stride + v, r);
            else
              _mm512_store_ps(dst + q * stride + v, r);
          }
        }
      }
    }
}
template <bool NT>
void copy(const float* __restrict s, float* __restrict d, long N) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < N; i += 16) {
    __m512 f = _mm512_load_ps(s + i);
    if (NT)
      _mm512_stream_ps(d + i, f);
    else
      _mm512_store_ps(d + i, f);
  }
}
template <class F>
double tm(F f, int rep) {
  f();
  std::vector<double> t;
  for (int r = 0; r < rep; ++r) {
    auto a = std::chrono::steady_clock::now();
    f();
    auto b = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
int main(int argc, char** argv) {
  n = atoi(argv[1]);
  long pad = argc > 2 ? atol(argv[2]) : 0;
  NX = (n + 15) / 16 * 16;
  plane = NX * n;
  stride = plane * n + pad;
  long N = 19 * stride + 64;
  A = (float*)aligned_alloc(64, N * 4);
  B = (float*)aligned_alloc(64, N * 4);
#pragma omp parallel for
  for (long i = 0; i < N; ++i) {
    A[i] = 0.05f + 1e-6f * (i % 97);
    B[i] = A[i];
  }
  long vox = (long)(n - 2) * (n - 2) * NX;
  double bytes = vox * 19. * 4 * 2;
  int rep = 10;
  PD = argc > 3 ? atoi(argv[3]) : 0;
  double t;
  t = tm([&] { copy<false>(A, B, 19 * stride); }, rep);
  printf("copy      %.1f GB/s\n", 19. * stride * 8 / t / 1e9);
  t = tm([&] { copy<true>(A, B, 19 * stride); }, rep);
  printf("copy NT   %.1f GB/s\n", 19. * stride * 8 / t / 1e9);
  t = tm([&] { ab<false, false>(A + 64, B + 64); }, rep);
  printf("AB move   %.1f GB/s %.0f MLUPS\n", bytes / t / 1e9, vox / t / 1e6);
  t = tm([&] { ab<true, false>(A + 64, B + 64); }, rep);
  printf("AB moveNT %.1f GB/s %.0f MLUPS\n", bytes / t / 1e9, vox / t / 1e6);
  t = tm([&] { ab<false, true>(A + 64, B + 64); }, rep);
  printf("AB bgk    %.1f GB/s %.0f MLUPS\n", bytes / t / 1e9, vox / t / 1e6);
  t = tm([&] { ab<true, true>(A + 64, B + 64); }, rep);
  printf("AB bgk NT %.1f GB/s %.0f MLUPS\n", bytes / t / 1e9, vox / t / 1e6);
}
