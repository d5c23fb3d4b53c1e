/// \file cupti_tracer.cpp
/// A Kokkos Tools library that writes a GPU timeline where Nsight Systems is not at hand: every
/// kernel, copy and memset of the process with its stream and GPU start and end times (CUPTI's
/// activity API), each kernel named by the Kokkos label it was launched under (an external
/// correlation id pushed around every Kokkos parallel dispatch), and the host's Kokkos profiling
/// regions (karman::halo_start, karman::halo_finish, ...) and the CUDA driver calls the host made
/// (MPI's among them: IPC handle opens, event and stream synchronisations), all on one clock.
///
///   KOKKOS_TOOLS_LIBS=libkarman_cupti_tracer.so KARMAN_TRACE_DIR=trace mpirun -np 2 karman ...
///
/// writes trace/trace_rank<R>.csv (R from the launcher's rank variable, else 0) at Kokkos
/// finalisation, one event a line: kind,name,stream,start_ns,end_ns,bytes. Kinds: kernel,
/// memcpy_htod, memcpy_dtoh, memcpy_dtod, memcpy_ptop (another GPU's memory: CUDA IPC, as a
/// GPU-aware MPI moves it), memcpy_other, memset, region and driver (host; stream -1; a driver
/// call is named by its API function, e.g. cuIpcOpenMemHandle_v2, cuEventSynchronize).
/// perf/timeline/plot_timeline.py draws it and measures how much of the exchange ran beside
/// the interior kernel.

#include <cupti.h>
#include <cupti_callbacks.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Event {
  std::string kind;
  std::string name;
  long long stream = -1;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t bytes = 0;
  std::uint32_t correlation = 0;  ///< CUPTI's, for kernels: names them by their Kokkos label at the end
};

struct Trace {
  std::mutex lock;
  std::vector<Event> events;
  std::map<std::uint32_t, std::uint64_t> kokkos_id_of;  ///< CUPTI correlation id -> Kokkos kernel id
  std::map<std::uint64_t, std::string> label_of;        ///< Kokkos kernel id -> label
  std::vector<std::pair<std::string, std::uint64_t>> open_regions;
  std::uint64_t next_kernel_id = 1;
  bool active = false;
};

Trace& trace() {
  static Trace t;
  return t;
}

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "karman cupti tracer: %s failed: %s\n", what, text ? text : "?");
}

std::uint64_t now() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

const char* copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "memcpy_htod";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "memcpy_dtoh";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "memcpy_dtod";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "memcpy_ptop";
    default:
      return "memcpy_other";
  }
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  constexpr std::size_t bytes = 8 << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, bytes));
  *size = bytes;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  Trace& t = trace();
  std::lock_guard<std::mutex> guard(t.lock);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        t.events.push_back({"kernel", k->name ? k->name : "?", k->streamId, k->start, k->end, 0, k->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        t.events.push_back({copy_kind(m->copyKind), "", m->streamId, m->start, m->end, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        t.events.push_back({"memcpy_ptop", "", m->streamId, m->start, m->end, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        t.events.push_back({"memset", "", m->streamId, m->start, m->end, m->bytes});
        break;
      }
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        const char* name = nullptr;
        cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &name);
        t.events.push_back({"driver", name ? name : "?", -1, a->start, a->end, 0});
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const auto* c = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        t.kokkos_id_of[c->correlationId] = c->externalId;
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

std::string rank_name() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "PMIX_RANK"}) {
    if (const char* value = std::getenv(var)) return value;
  }
  return "0";
}

void begin_dispatch(const char* name, std::uint64_t* id) {
  Trace& t = trace();
  {
    std::lock_guard<std::mutex> guard(t.lock);
    *id = t.next_kernel_id++;
    t.label_of[*id] = name;
  }
  check(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, *id), "push correlation id");
}

void end_dispatch(std::uint64_t) {
  std::uint64_t popped = 0;
  check(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN, &popped), "pop correlation id");
}

}  // namespace

extern "C" {

/// The settings a Kokkos Tools library may ask for (Kokkos_Profiling_C_Interface.h, a C ABI that
/// the tools keep their own copy of, as here: this library does not link Kokkos).
struct Kokkos_Tools_ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "register callbacks");
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION})
    check(cuptiActivityEnable(kind), "enable activity");
  trace().active = true;
}

/// Kokkos fences the whole device before every callback of a tool that does not say otherwise,
/// which would serialise the streams this tool is there to show.
void kokkosp_request_tool_settings(std::uint32_t, Kokkos_Tools_ToolSettings* settings) {
  settings->requires_global_fencing = false;
}

void kokkosp_finalize_library() {
  Trace& t = trace();
  if (!t.active) return;
  check(cuptiActivityFlushAll(1), "flush");
  const char* dir = std::getenv("KARMAN_TRACE_DIR");
  const std::string path = std::string(dir ? dir : ".") + "/trace_rank" + rank_name() + ".csv";
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "karman cupti tracer: cannot write %s\n", path.c_str());
    return;
  }
  std::lock_guard<std::mutex> guard(t.lock);
  std::fprintf(out, "kind,name,stream,start_ns,end_ns,bytes\n");
  for (const Event& e : t.events) {
    // A kernel's external correlation record may come after the kernel's own (another buffer):
    // the label is looked up once all are in. Labels hold no commas; mangled names may.
    std::string name = e.name;
    if (e.kind == "kernel") {
      const auto id = t.kokkos_id_of.find(e.correlation);
      if (id != t.kokkos_id_of.end()) name = t.label_of[id->second];
    }
    for (char& c : name)
      if (c == ',' || c == '"') c = ';';
    std::fprintf(out, "%s,%s,%lld,%llu,%llu,%llu\n", e.kind.c_str(), name.c_str(), e.stream,
                 static_cast<unsigned long long>(e.start), static_cast<unsigned long long>(e.end),
                 static_cast<unsigned long long>(e.bytes));
  }
  std::fclose(out);
  t.active = false;
}

void kokkosp_begin_parallel_for(const char* name, std::uint32_t, std::uint64_t* id) { begin_dispatch(name, id); }
void kokkosp_end_parallel_for(std::uint64_t id) { end_dispatch(id); }
void kokkosp_begin_parallel_reduce(const char* name, std::uint32_t, std::uint64_t* id) { begin_dispatch(name, id); }
void kokkosp_end_parallel_reduce(std::uint64_t id) { end_dispatch(id); }
void kokkosp_begin_parallel_scan(const char* name, std::uint32_t, std::uint64_t* id) { begin_dispatch(name, id); }
void kokkosp_end_parallel_scan(std::uint64_t id) { end_dispatch(id); }

void kokkosp_push_profile_region(const char* name) {
  Trace& t = trace();
  const std::uint64_t start = now();
  std::lock_guard<std::mutex> guard(t.lock);
  t.open_regions.emplace_back(name, start);
}

void kokkosp_pop_profile_region() {
  Trace& t = trace();
  const std::uint64_t end = now();
  std::lock_guard<std::mutex> guard(t.lock);
  if (t.open_regions.empty()) return;
  t.events.push_back({"region", t.open_regions.back().first, -1, t.open_regions.back().second, end, 0});
  t.open_regions.pop_back();
}

}  // extern "C"
