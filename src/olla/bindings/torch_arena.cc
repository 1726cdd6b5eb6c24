// olla.torch._arena: PlannedArena (runtime/planned_arena.h) installed as PyTorch's CPU
// allocator while an olla step runs (python/olla/torch/arena.py wraps it), and, in a
// build against a CUDA build of torch, inside PyTorch's CUDA allocator
// (torch_cuda_allocator.h).
//
// Links only c10 (and c10_cuda), from the torch it was built for (cmake/OllaTorch.cmake),
// not torch's Python bindings: tensors never cross this module, only sizes, offsets and
// counts. It reports that torch's version and the libc10 it loaded, so that arena.py
// refuses to install into another torch's allocator. The DataPtrs it hands out carry the
// data pointer as their context, since some kernels (mkldnn convolutions) check that the
// two are equal; the deleter finds the arena that served a pointer in a global table
// (served_pointers.h), so a tensor may outlive the installation.
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <dlfcn.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "olla/bindings/served_pointers.h"
#include "olla/runtime/planned_arena.h"
#ifdef OLLA_TORCH_CUDA
#include "olla/bindings/torch_cuda_allocator.h"
#endif

namespace py = pybind11;

namespace olla {
namespace {

// Above c10's default (0) and any priority PyTorch itself uses on CPU.
constexpr uint8_t kPriority = 200;

void Delete(void* pointer) {
  if (pointer == nullptr) return;
  if (std::shared_ptr<PlannedArena> arena = ServedPointers::Get().Take(pointer))
    arena->Free(pointer);
}

class PlanningAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t bytes) override {
    std::shared_ptr<PlannedArena> arena = Current();
    if (arena == nullptr)
      throw std::runtime_error("olla's arena allocator is not installed");
    void* pointer = arena->Allocate(bytes);
    if (pointer != nullptr) ServedPointers::Get().Add(pointer, std::move(arena));
    return {pointer, pointer, &Delete, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &Delete; }
  void copy_data(void* destination, const void* source, size_t bytes) const override {
    default_copy_data(destination, source, bytes);
  }

  void Set(std::shared_ptr<PlannedArena> arena) {
    std::lock_guard<std::mutex> lock(mutex_);
    arena_ = std::move(arena);
  }

 private:
  std::shared_ptr<PlannedArena> Current() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return arena_;
  }

  mutable std::mutex mutex_;
  std::shared_ptr<PlannedArena> arena_;
};

PlanningAllocator& Allocator() {
  static PlanningAllocator* allocator = new PlanningAllocator();
  return *allocator;
}

c10::Allocator* previous = nullptr;  // The allocator install() replaced.

void Install(std::shared_ptr<PlannedArena> arena) {
  if (previous != nullptr) throw std::runtime_error("an olla arena is already installed");
  Allocator().Set(std::move(arena));
  previous = c10::GetCPUAllocator();
  c10::SetCPUAllocator(&Allocator(), kPriority);
}

void Uninstall() {
  if (previous == nullptr) return;
  c10::SetCPUAllocator(previous, kPriority);
  previous = nullptr;
  Allocator().Set(nullptr);
}

// The file of the libc10 whose allocator Install() replaces: the one this module's c10
// symbols resolved to when it was loaded.
std::string C10Library() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&c10::SetCPUAllocator), &info) == 0 ||
      info.dli_fname == nullptr)
    return "";
  return info.dli_fname;
}

// (offset, size, request index or -1): a PlannedSlot as Python passes it.
using Slot = std::tuple<int64_t, int64_t, int64_t>;

std::vector<PlannedSlot> Planned(const std::vector<Slot>& slots) {
  std::vector<PlannedSlot> planned;
  planned.reserve(slots.size());
  for (const auto& [offset, size, request] : slots)
    planned.push_back({offset, size, request});
  return planned;
}

py::dict Stats(const PlannedArena& arena) {
  const ArenaStats stats = arena.stats();
  py::dict out;
  out["arena_bytes"] = stats.arena_bytes;
  out["served"] = stats.served;
  out["served_bytes"] = stats.served_bytes;
  out["fell_through"] = stats.fell_through;
  out["fell_through_bytes"] = stats.fell_through_bytes;
  out["other_stream"] = stats.other_stream;
  out["fall_through_live_bytes"] = stats.fall_through_live_bytes;
  out["fall_through_peak_bytes"] = stats.fall_through_peak_bytes;
  out["blocked"] = stats.blocked;
  out["unclaimed"] = stats.unclaimed;
  out["fenced"] = stats.fenced;
  out["peak_bytes"] = stats.peak_bytes();
  return out;
}

}  // namespace
}  // namespace olla

PYBIND11_MODULE(_arena, module) {
  using olla::Planned;
  using olla::PlannedArena;
  using olla::Slot;
  module.doc() = "olla's planned arena as PyTorch's CPU allocator";
  py::class_<PlannedArena, std::shared_ptr<PlannedArena>>(module, "Arena")
      .def(py::init<int64_t>(), py::arg("arena_bytes"))
      .def(
          "announce",
          [](PlannedArena& arena, const std::vector<Slot>& slots) {
            arena.Announce(Planned(slots));
          },
          py::arg("slots"), "(offset, size, request index or -1) per planned buffer")
      .def(
          "set_schedule",
          [](PlannedArena& arena, const std::vector<std::vector<Slot>>& schedule) {
            std::vector<std::vector<olla::PlannedSlot>> planned;
            planned.reserve(schedule.size());
            for (const std::vector<Slot>& slots : schedule)
              planned.push_back(Planned(slots));
            arena.SetSchedule(std::move(planned));
          },
          py::arg("schedule"), "announce()'s slots for each position of a step")
      .def("announce_scheduled", &PlannedArena::AnnounceScheduled, py::arg("position"),
           "announce(schedule[position]) (IndexError for a position not scheduled)")
      .def(
          "window",
          [](const PlannedArena& arena) {
            std::vector<std::tuple<int64_t, uintptr_t, int64_t, bool>> out;
            for (const olla::ArenaRequest& r : arena.window())
              out.emplace_back(r.size, r.address, r.freed_at, r.other_thread);
            return out;
          },
          "(size, address, freed_at or -1, other_thread) per request since the last "
          "announcement")
      .def("stats", &olla::Stats)
      .def("reset_stats", &PlannedArena::ResetStats);
  module.attr("torch_version") = OLLA_TORCH_VERSION;
  module.def("c10_library", &olla::C10Library,
             "The file of the libc10 this module installs its allocator into");
  module.def("install", &olla::Install, py::arg("arena"));
  module.def("uninstall", &olla::Uninstall);
  module.def(
      "installed", [] { return olla::previous != nullptr; },
      "Whether an arena is PyTorch's CPU allocator now");
#ifdef OLLA_TORCH_CUDA
  module.attr("cuda_built") = true;
  module.def("cuda_arena", &olla::NewCudaArena, py::arg("arena_bytes"),
             "An Arena on the current CUDA device, from PyTorch's caching allocator");
  module.def("install_cuda", &olla::InstallCuda, py::arg("arena"));
  module.def("uninstall_cuda", &olla::UninstallCuda);
  module.def("c10_cuda_library", &olla::C10CudaLibrary,
             "The file of the libc10_cuda whose CUDA allocator this module replaces");
  module.def("cuda_installed", &olla::CudaInstalled,
             "Whether olla's allocator stands in PyTorch's CUDA allocator now");
#else
  module.attr("cuda_built") = false;
#endif
}
