// bench/alloc_counter.cc — replaces the global operator new/delete of the benchmark binaries
// so that memory benchmarks can count the bytes the kernel allocates.
//
// Counting is off unless AllocCounter::Start() turned it on; then every allocation adds its
// usable size (malloc_usable_size, so allocator rounding is included) and every free subtracts
// it. Single-threaded use only (benchmarks run on one thread). The aligned and nothrow forms
// are not replaced: the library's defaults forward to these.
#include <malloc.h>

#include <cstdlib>
#include <new>

#include "bench_support.h"

namespace {

bool g_counting = false;
int64_t g_live = 0;
int64_t g_peak = 0;
int64_t g_allocations = 0;

void* Allocate(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  if (g_counting) {
    g_live += static_cast<int64_t>(malloc_usable_size(p));
    ++g_allocations;
    if (g_live > g_peak) g_peak = g_live;
  }
  return p;
}

void Free(void* p) noexcept {
  if (p == nullptr) return;
  if (g_counting) g_live -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

void* operator new(std::size_t size) { return Allocate(size); }
void* operator new[](std::size_t size) { return Allocate(size); }
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, std::size_t) noexcept { Free(p); }
void operator delete[](void* p, std::size_t) noexcept { Free(p); }

namespace allocore::bench {

void AllocCounter::Start() {
  g_live = 0;
  g_peak = 0;
  g_allocations = 0;
  g_counting = true;
}
void AllocCounter::Stop() { g_counting = false; }
int64_t AllocCounter::LiveBytes() { return g_live; }
int64_t AllocCounter::PeakBytes() { return g_peak; }
int64_t AllocCounter::Allocations() { return g_allocations; }

}  // namespace allocore::bench
