#include "olla/solver/isolated_solver.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace olla {
namespace {

// The wire format, child to parent, in host byte order: the status code, the status
// message, and for an ok status the conclusion, objective, bound and values.
class Writer {
 public:
  void Add(const void* data, size_t bytes) {
    const auto* p = static_cast<const char*>(data);
    buffer_.insert(buffer_.end(), p, p + bytes);
  }
  template <typename T>
  void Add(const T& value) {
    Add(&value, sizeof(T));
  }
  void Add(const std::string& text) {
    Add(static_cast<uint64_t>(text.size()));
    Add(text.data(), text.size());
  }
  bool WriteTo(int fd) const {
    size_t done = 0;
    while (done < buffer_.size()) {
      const ssize_t n = write(fd, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

 private:
  std::vector<char> buffer_;
};

class Reader {
 public:
  explicit Reader(std::vector<char> bytes) : bytes_(std::move(bytes)) {}
  bool Take(void* data, size_t bytes) {
    if (left() < bytes) return false;
    if (bytes == 0) return true;  // data may be null then.
    std::memcpy(data, bytes_.data() + next_, bytes);
    next_ += bytes;
    return true;
  }
  template <typename T>
  bool Take(T& value) {
    return Take(&value, sizeof(T));
  }
  bool Take(std::string& text) {
    uint64_t size = 0;
    if (!Take(size) || left() < size) return false;
    text.assign(bytes_.data() + next_, size);
    next_ += size;
    return true;
  }
  bool AtEnd() const { return next_ == bytes_.size(); }
  size_t left() const { return bytes_.size() - next_; }

 private:
  std::vector<char> bytes_;
  size_t next_ = 0;
};

void Encode(const StatusOr<MilpResult>& solved, Writer& out) {
  out.Add(static_cast<int32_t>(solved.status().code()));
  out.Add(solved.status().message());
  if (!solved.ok()) return;
  out.Add(static_cast<int32_t>(solved->conclusion));
  out.Add(solved->objective);
  out.Add(solved->best_bound);
  out.Add(solved->nodes);
  out.Add(static_cast<uint64_t>(solved->values.size()));
  out.Add(solved->values.data(), solved->values.size() * sizeof(double));
  out.Add(solved->failure);
}

std::optional<StatusOr<MilpResult>> Decode(Reader in) {
  int32_t code = 0;
  std::string message;
  if (!in.Take(code) || !in.Take(message)) return std::nullopt;
  if (static_cast<StatusCode>(code) != StatusCode::kOk) {
    if (!in.AtEnd()) return std::nullopt;
    return StatusOr<MilpResult>(Status(static_cast<StatusCode>(code), message));
  }
  MilpResult result;
  int32_t conclusion = 0;
  uint64_t count = 0;
  if (!in.Take(conclusion) || !in.Take(result.objective) || !in.Take(result.best_bound) ||
      !in.Take(result.nodes) || !in.Take(count) ||
      count > in.left() / sizeof(double)) {  // Before allocating.
    return std::nullopt;
  }
  result.conclusion = static_cast<MilpConclusion>(conclusion);
  result.values.resize(count);
  if (!in.Take(result.values.data(), count * sizeof(double)) ||
      !in.Take(result.failure) || !in.AtEnd()) {
    return std::nullopt;
  }
  return StatusOr<MilpResult>(std::move(result));
}

// Everything the child writes until it closes the pipe, or nullopt when `deadline`
// passes first.
std::optional<std::vector<char>> ReadUntil(
    int fd, std::chrono::steady_clock::time_point deadline) {
  std::vector<char> bytes;
  char chunk[1 << 16];
  while (true) {
    int wait_ms = -1;  // No deadline: wait as long as it takes.
    if (deadline != std::chrono::steady_clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      wait_ms = static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
    }
    pollfd ready{fd, POLLIN, 0};
    const int polled = poll(&ready, 1, wait_ms);
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) return std::nullopt;
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  return bytes;
}

// When the child must have answered: CBC checks its time limit only between
// branch-and-bound nodes, and a large model's root LP can run for minutes past it, so
// the child gets the limit plus 5 % and half a second, then is killed.
std::chrono::steady_clock::time_point AnswerDeadline(const MilpOptions& options) {
  const double seconds = options.time_limit_seconds * 1.05 + 0.5;
  if (!(seconds < 1e8)) return std::chrono::steady_clock::time_point::max();
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(seconds));
}

// Why a child that gave no complete result stopped.
std::string DescribeExit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  if (WIFEXITED(wait_status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  }
  return "stopped";
}

MilpResult Failed(const MilpModel& model, const MilpOptions& options,
                  std::string failure) {
  MilpResult result;
  result.conclusion = MilpConclusion::kNoSolution;
  result.best_bound = model.maximize() ? kInfinity : -kInfinity;
  result.failure = std::move(failure);
  FallBackToStart(model, options, result);
  return result;
}

class IsolatedSolver : public MilpSolver {
 public:
  explicit IsolatedSolver(std::unique_ptr<MilpSolver> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }

  StatusOr<MilpResult> Solve(const MilpModel& model,
                             const MilpOptions& options) override {
    // Without a child process (no pipe, no fork), the solve runs here, unguarded.
    int fds[2];
    if (pipe(fds) != 0) return inner_->Solve(model, options);
    // The child inherits unwritten stdio buffers, and CBC flushes stdout: written
    // now, they cannot be written twice.
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) {
      close(fds[0]);
      close(fds[1]);
      return inner_->Solve(model, options);
    }
    if (child == 0) {
      close(fds[0]);
      Writer out;
      Encode(inner_->Solve(model, options), out);
      // _exit: the parent's atexit handlers and stdio buffers are not the child's.
      _exit(out.WriteTo(fds[1]) ? 0 : 1);
    }
    close(fds[1]);
    const std::optional<std::vector<char>> bytes =
        ReadUntil(fds[0], AnswerDeadline(options));
    close(fds[0]);
    if (!bytes) kill(child, SIGKILL);  // Past its time: the start stands.
    int wait_status = 0;
    while (waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {
    }
    if (!bytes) {
      return Failed(model, options,
                    inner_->name() + " stopped: no answer within its time limit");
    }
    const bool clean = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
    std::optional<StatusOr<MilpResult>> decoded = Decode(Reader(*bytes));
    if (clean && decoded) return std::move(*decoded);
    return Failed(model, options, inner_->name() + " " + DescribeExit(wait_status));
  }

 private:
  std::unique_ptr<MilpSolver> inner_;
};

}  // namespace

std::unique_ptr<MilpSolver> MakeIsolatedSolver(std::unique_ptr<MilpSolver> inner) {
  return std::make_unique<IsolatedSolver>(std::move(inner));
}

std::unique_ptr<MilpSolver> MakeDefaultMilpSolver() {
  return MakeIsolatedSolver(MakeCbcSolver());
}

}  // namespace olla
