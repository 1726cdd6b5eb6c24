#include "olla/bindings/torch_cuda_allocator.h"

#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "olla/bindings/served_pointers.h"

namespace olla {
namespace {

namespace cca = c10::cuda::CUDACachingAllocator;

// Device memory from the native caching allocator, on the stream current at each
// request: the arena block counts in its reserved and allocated bytes, as does every
// fall-through.
class NativeCudaMemory final : public ArenaMemory {
 public:
  explicit NativeCudaMemory(cca::CUDAAllocator* native) : native_(native) {}
  void* Allocate(size_t bytes) override {
    return native_->raw_alloc_with_stream(bytes,
                                          c10::cuda::getCurrentCUDAStream().stream());
  }
  void Free(void* pointer) override { native_->raw_delete(pointer); }

 private:
  cca::CUDAAllocator* native_;
};

// Passes once the work queued on each stream before the fence was made has run.
class StreamsFence final : public Fence {
 public:
  explicit StreamsFence(const std::vector<cudaStream_t>& streams) {
    for (cudaStream_t stream : streams) {
      cudaEvent_t event = nullptr;
      C10_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      events_.push_back(event);
      C10_CUDA_CHECK(cudaEventRecord(event, stream));
    }
  }
  ~StreamsFence() override {
    for (cudaEvent_t event : events_) (void)cudaEventDestroy(event);
  }
  StreamsFence(const StreamsFence&) = delete;
  StreamsFence& operator=(const StreamsFence&) = delete;

  bool Passed() override {
    for (cudaEvent_t event : events_) {
      const cudaError_t status = cudaEventQuery(event);
      if (status == cudaErrorNotReady) {
        (void)cudaGetLastError();  // Not an error: clears the sticky status.
        return false;
      }
      C10_CUDA_CHECK(status);
    }
    return true;
  }

 private:
  std::vector<cudaEvent_t> events_;
};

void DeleteCuda(void* pointer);

class PlanningCudaAllocator final : public cca::CUDAAllocator {
 public:
  void Install(std::shared_ptr<PlannedArena> arena, cca::CUDAAllocator* native,
               c10::DeviceIndex device, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    arena_ = std::move(arena);
    native_ = native;
    device_ = device;
    stream_ = stream;
  }
  void Uninstall() {
    std::lock_guard<std::mutex> lock(mutex_);
    arena_ = nullptr;
  }
  cca::CUDAAllocator* native() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return native_;
  }

  // The planned pointers' deleter.
  void Delete(void* pointer) {
    if (pointer == nullptr) return;
    std::shared_ptr<PlannedArena> arena = ServedPointers::Get().Take(pointer);
    if (arena == nullptr) {
      native()->raw_delete(pointer);  // Handed out by the native allocator.
      return;
    }
    std::vector<cudaStream_t> streams;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto recorded = recorded_.find(pointer);
      if (recorded != recorded_.end()) {
        streams = std::move(recorded->second);
        recorded_.erase(recorded);
      }
    }
    if (streams.empty()) {
      arena->Free(pointer);
    } else {
      arena->FreeAfter(pointer, std::make_unique<StreamsFence>(streams));
    }
  }

  c10::DataPtr allocate(size_t bytes) override {
    const c10::DeviceIndex device = c10::cuda::current_device();
    void* pointer =
        Serve(bytes, device, c10::cuda::getCurrentCUDAStream(device).stream());
    return {pointer, pointer, &DeleteCuda, c10::Device(c10::DeviceType::CUDA, device)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &DeleteCuda; }
  void copy_data(void* destination, const void* source,
                 std::size_t bytes) const override {
    native()->copy_data(destination, source, bytes);
  }
  void* raw_alloc(size_t bytes) override {
    return raw_alloc_with_stream(bytes, c10::cuda::getCurrentCUDAStream().stream());
  }
  void* raw_alloc_with_stream(size_t bytes, cudaStream_t stream) override {
    return Serve(bytes, c10::cuda::current_device(), stream);
  }
  void raw_delete(void* pointer) override { Delete(pointer); }

  // A planned pointer read on another stream: its bytes wait for that stream's work
  // when freed. Anything else is the native allocator's.
  using cca::CUDAAllocator::recordStream;
  void recordStream(const c10::DataPtr& data, c10::cuda::CUDAStream stream) override {
    void* pointer = data.get();
    if (pointer == nullptr) return;
    if (data.get_deleter() != &DeleteCuda) {
      native()->recordStream(data, stream);
      return;
    }
    const std::shared_ptr<PlannedArena> arena = ServedPointers::Get().Find(pointer);
    if (arena == nullptr) return;
    if (!arena->InArena(pointer)) {
      // A fall-through: the native allocator's block under olla's deleter.
      c10::DataPtr native_view(pointer, pointer, native()->raw_deleter(), data.device());
      native()->recordStream(native_view, stream);
      native_view.release_context();
      return;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (arena_ == arena && stream.stream() == stream_) return;
    std::vector<cudaStream_t>& streams = recorded_[pointer];
    for (cudaStream_t known : streams) {
      if (known == stream.stream()) return;
    }
    streams.push_back(stream.stream());
  }

  void* getBaseAllocation(void* pointer, size_t* size) override {
    const std::shared_ptr<PlannedArena> arena = ServedPointers::Get().Find(pointer);
    if (arena != nullptr && arena->InArena(pointer))
      return native()->getBaseAllocation(const_cast<void*>(arena->base()), size);
    return native()->getBaseAllocation(pointer, size);
  }

  // Everything else is the native allocator's.
  bool initialized() override { return native()->initialized(); }
  void emptyCache(c10::MempoolId_t pool) override { native()->emptyCache(pool); }
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(
      c10::DeviceIndex device) override {
    return native()->getDeviceStats(device);
  }
  void resetAccumulatedStats(c10::DeviceIndex device) override {
    native()->resetAccumulatedStats(device);
  }
  void resetPeakStats(c10::DeviceIndex device) override {
    native()->resetPeakStats(device);
  }
  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
    return native()->getMemoryInfo(device);
  }
  void init(int device_count) override { native()->init(device_count); }
  double getMemoryFraction(c10::DeviceIndex device) override {
    return native()->getMemoryFraction(device);
  }
  void setMemoryFraction(double fraction, c10::DeviceIndex device) override {
    native()->setMemoryFraction(fraction, device);
  }
  std::vector<cca::StreamSegmentSize> getExpandableSegmentSizes(
      c10::DeviceIndex device) override {
    return native()->getExpandableSegmentSizes(device);
  }
  void enable(bool value) override { native()->enable(value); }
  bool isEnabled() const override { return native()->isEnabled(); }
  void cacheInfo(c10::DeviceIndex device, size_t* largest_block) override {
    native()->cacheInfo(device, largest_block);
  }
  cca::SnapshotInfo snapshot(c10::MempoolId_t pool, bool include_traces) override {
    return native()->snapshot(pool, include_traces);
  }
  void beginAllocateToPool(c10::DeviceIndex device, c10::MempoolId_t pool,
                           std::function<bool(cudaStream_t)> filter) override {
    native()->beginAllocateToPool(device, pool, std::move(filter));
  }
  void endAllocateToPool(c10::DeviceIndex device, c10::MempoolId_t pool) override {
    native()->endAllocateToPool(device, pool);
  }
  void releasePool(c10::DeviceIndex device, c10::MempoolId_t pool) override {
    native()->releasePool(device, pool);
  }
  int getPoolUseCount(c10::DeviceIndex device, c10::MempoolId_t pool) override {
    return native()->getPoolUseCount(device, pool);
  }
  void createOrIncrefPool(c10::DeviceIndex device, c10::MempoolId_t pool,
                          std::shared_ptr<cca::CUDAAllocator> allocator) override {
    native()->createOrIncrefPool(device, pool, std::move(allocator));
  }
  void setUseOnOOM(c10::DeviceIndex device, c10::MempoolId_t pool, bool use) override {
    native()->setUseOnOOM(device, pool, use);
  }
  void setNoSplit(c10::DeviceIndex device, c10::MempoolId_t pool) override {
    native()->setNoSplit(device, pool);
  }
  bool checkPoolLiveAllocations(c10::DeviceIndex device, c10::MempoolId_t pool,
                                const std::unordered_set<void*>& expected) override {
    return native()->checkPoolLiveAllocations(device, pool, expected);
  }
  cca::ShareableHandle shareIpcHandle(void* pointer) override {
    return native()->shareIpcHandle(pointer);
  }
  std::shared_ptr<void> getIpcDevPtr(std::string handle) override {
    return native()->getIpcDevPtr(std::move(handle));
  }
  bool isHistoryEnabled() override { return native()->isHistoryEnabled(); }
  void recordHistory(bool enabled, cca::CreateContextFn context_recorder,
                     size_t max_entries, cca::RecordContext when, bool clear_history,
                     const std::vector<std::string>& skip_actions) override {
    native()->recordHistory(enabled, std::move(context_recorder), max_entries, when,
                            clear_history, skip_actions);
  }
  void recordAnnotation(
      const std::vector<std::pair<std::string, std::string>>& md) override {
    native()->recordAnnotation(md);
  }
  void pushCompileContext(std::string& md) override { native()->pushCompileContext(md); }
  void popCompileContext() override { native()->popCompileContext(); }
  void setUserMetadata(const std::string& metadata) override {
    native()->setUserMetadata(metadata);
  }
  std::string getUserMetadata() override { return native()->getUserMetadata(); }
  void attachOutOfMemoryObserver(cca::OutOfMemoryObserver observer) override {
    native()->attachOutOfMemoryObserver(std::move(observer));
  }
  void attachAllocatorTraceTracker(cca::AllocatorTraceTracker tracker) override {
    native()->attachAllocatorTraceTracker(std::move(tracker));
  }
  void enablePeerAccess(c10::DeviceIndex device, c10::DeviceIndex to_access) override {
    native()->enablePeerAccess(device, to_access);
  }
  cudaError_t memcpyAsync(void* destination, int destination_device, const void* source,
                          int source_device, size_t bytes, cudaStream_t stream,
                          bool p2p_enabled) override {
    return native()->memcpyAsync(destination, destination_device, source, source_device,
                                 bytes, stream, p2p_enabled);
  }
  std::shared_ptr<cca::AllocatorState> getCheckpointState(
      c10::DeviceIndex device, c10::MempoolId_t pool) override {
    return native()->getCheckpointState(device, pool);
  }
  cca::CheckpointDelta setCheckpointPoolState(
      c10::DeviceIndex device, std::shared_ptr<cca::AllocatorState> state) override {
    return native()->setCheckpointPoolState(device, std::move(state));
  }
  std::string name() override { return "olla"; }

 private:
  // A request of `bytes` on `device`'s `stream`: from the installed arena (planned when
  // it is on the step's device and stream), else the native allocator's.
  void* Serve(size_t bytes, c10::DeviceIndex device, cudaStream_t stream) {
    std::shared_ptr<PlannedArena> arena;
    bool on_step_stream = false;
    cca::CUDAAllocator* native = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      arena = arena_;
      on_step_stream = device == device_ && stream == stream_;
      native = native_;
    }
    // Called after Uninstall by someone who kept this allocator: the native one serves.
    if (arena == nullptr) return native->raw_alloc_with_stream(bytes, stream);
    void* pointer = arena->Allocate(bytes, on_step_stream);
    if (pointer != nullptr) ServedPointers::Get().Add(pointer, std::move(arena));
    return pointer;
  }

  mutable std::mutex mutex_;
  std::shared_ptr<PlannedArena> arena_;   // Installed; null otherwise.
  cca::CUDAAllocator* native_ = nullptr;  // The allocator Install() replaced.
  c10::DeviceIndex device_ = -1;
  cudaStream_t stream_ = nullptr;
  // Planned pointers recorded on other streams than the step's.
  std::unordered_map<void*, std::vector<cudaStream_t>> recorded_;
};

PlanningCudaAllocator& Allocator() {
  static PlanningCudaAllocator* allocator = new PlanningCudaAllocator();  // Never freed.
  return *allocator;
}

void DeleteCuda(void* pointer) { Allocator().Delete(pointer); }

// The allocator olla forwards to: the global one, unless olla's stands in its place.
cca::CUDAAllocator* NativeAllocator() {
  cca::CUDAAllocator* current = cca::allocator.load();
  if (current == &Allocator()) return Allocator().native();
  if (current == nullptr || !current->initialized())
    throw std::runtime_error(
        "PyTorch's CUDA allocator is not initialized (call torch.cuda.init() first)");
  return current;
}

}  // namespace

std::shared_ptr<PlannedArena> NewCudaArena(int64_t arena_bytes) {
  return std::make_shared<PlannedArena>(
      arena_bytes, std::make_unique<NativeCudaMemory>(NativeAllocator()));
}

void InstallCuda(std::shared_ptr<PlannedArena> arena) {
  if (CudaInstalled())
    throw std::runtime_error("an olla CUDA arena is already installed");
  cca::CUDAAllocator* native = NativeAllocator();
  const c10::DeviceIndex device = c10::cuda::current_device();
  Allocator().Install(std::move(arena), native, device,
                      c10::cuda::getCurrentCUDAStream(device).stream());
  cca::allocator.store(&Allocator());
}

void UninstallCuda() {
  if (!CudaInstalled()) return;
  cca::allocator.store(Allocator().native());
  Allocator().Uninstall();
}

bool CudaInstalled() { return cca::allocator.load() == &Allocator(); }

std::string C10CudaLibrary() {
  Dl_info info;
  if (dladdr(static_cast<const void*>(&cca::allocator), &info) == 0 ||
      info.dli_fname == nullptr)
    return "";
  return info.dli_fname;
}

}  // namespace olla
