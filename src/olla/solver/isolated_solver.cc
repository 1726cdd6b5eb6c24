#include "olla/solver/isolated_solver.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <dirent.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

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
  // To a pipe (write) or a socket (send without SIGPIPE, should the peer be gone).
  bool WriteTo(int fd, bool socket = false) const {
    size_t done = 0;
    while (done < buffer_.size()) {
      const ssize_t n =
          socket ? send(fd, buffer_.data() + done, buffer_.size() - done, MSG_NOSIGNAL)
                 : write(fd, buffer_.data() + done, buffer_.size() - done);
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

// The request, parent to worker: the model and the options.
void EncodeRequest(const MilpModel& model, const MilpOptions& options, Writer& out) {
  out.Add(static_cast<uint8_t>(model.maximize()));
  out.Add(static_cast<uint64_t>(model.variables().size()));
  for (const MilpVariable& v : model.variables()) {
    out.Add(v.name);
    out.Add(v.lower);
    out.Add(v.upper);
    out.Add(v.objective);
    out.Add(static_cast<uint8_t>(v.integer));
  }
  out.Add(static_cast<uint64_t>(model.constraints().size()));
  for (const MilpConstraint& c : model.constraints()) {
    out.Add(c.name);
    out.Add(c.lower);
    out.Add(c.upper);
    out.Add(static_cast<uint64_t>(c.terms.size()));
    out.Add(c.terms.data(), c.terms.size() * sizeof(MilpTerm));
  }
  out.Add(options.time_limit_seconds);
  out.Add(options.max_nodes);
  out.Add(options.relative_gap);
  out.Add(static_cast<int32_t>(options.threads));
  out.Add(static_cast<uint8_t>(options.start.has_value()));
  if (options.start) {
    out.Add(static_cast<uint64_t>(options.start->size()));
    out.Add(options.start->data(), options.start->size() * sizeof(double));
  }
}

bool DecodeRequest(Reader in, MilpModel& model, MilpOptions& options) {
  uint8_t flag = 0;
  uint64_t count = 0;
  if (!in.Take(flag) || !in.Take(count)) return false;
  model.set_maximize(flag != 0);
  for (uint64_t i = 0; i < count; ++i) {
    MilpVariable v;
    uint8_t integer = 0;
    if (!in.Take(v.name) || !in.Take(v.lower) || !in.Take(v.upper) ||
        !in.Take(v.objective) || !in.Take(integer)) {
      return false;
    }
    model.AddVariable(std::move(v.name), v.lower, v.upper, v.objective, integer != 0);
  }
  if (!in.Take(count)) return false;
  for (uint64_t i = 0; i < count; ++i) {
    MilpConstraint c;
    uint64_t terms = 0;
    if (!in.Take(c.name) || !in.Take(c.lower) || !in.Take(c.upper) || !in.Take(terms) ||
        terms > in.left() / sizeof(MilpTerm)) {
      return false;
    }
    c.terms.resize(terms);
    if (!in.Take(c.terms.data(), terms * sizeof(MilpTerm))) return false;
    model.AddConstraint(std::move(c.name), std::move(c.terms), c.lower, c.upper);
  }
  int32_t threads = 1;
  if (!in.Take(options.time_limit_seconds) || !in.Take(options.max_nodes) ||
      !in.Take(options.relative_gap) || !in.Take(threads) || !in.Take(flag)) {
    return false;
  }
  options.threads = threads;
  if (flag != 0) {
    if (!in.Take(count) || count > in.left() / sizeof(double)) return false;
    options.start.emplace(count);
    if (!in.Take(options.start->data(), count * sizeof(double))) return false;
  }
  return in.AtEnd();
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

// The threads of this process, from /proc/self/task (0 when it cannot be read).
int CountThreads() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return 0;
  int threads = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++threads;
  }
  closedir(dir);
  return threads;
}

std::mutex worker_mutex;
std::vector<std::string> worker_command;  // Empty: none registered.

std::vector<std::string> WorkerCommand() {
  std::lock_guard<std::mutex> lock(worker_mutex);
  return worker_command;
}

// The worker's socket is this descriptor in the worker (0-2 stay the caller's).
constexpr int kWorkerFd = 3;

// What a child (forked or spawned) left: its bytes, or the reason it gave none.
StatusOr<MilpResult> Collect(const MilpSolver& inner, const MilpModel& model,
                             const MilpOptions& options, pid_t child, int fd) {
  const std::optional<std::vector<char>> bytes = ReadUntil(fd, AnswerDeadline(options));
  close(fd);
  if (!bytes) kill(child, SIGKILL);  // Past its time: the start stands.
  int wait_status = 0;
  while (waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!bytes) {
    return Failed(model, options,
                  inner.name() + " stopped: no answer within its time limit");
  }
  const bool clean = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
  std::optional<StatusOr<MilpResult>> decoded = Decode(Reader(*bytes));
  if (clean && decoded) return std::move(*decoded);
  return Failed(model, options, inner.name() + " " + DescribeExit(wait_status));
}

// A fresh worker process (fork and exec: safe from a threaded process), sent the model
// over a socket; nullopt when it cannot be started.
std::optional<StatusOr<MilpResult>> SolveInWorker(const MilpSolver& inner,
                                                  const std::vector<std::string>& command,
                                                  const MilpModel& model,
                                                  const MilpOptions& options) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], kWorkerFd);  // Clears CLOEXEC.
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_t child = 0;
  const int spawned =
      posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    return std::nullopt;
  }
  Writer request;
  EncodeRequest(model, options, request);
  // A worker that died before reading shows as a failure below, not as SIGPIPE here.
  request.WriteTo(fds[0], /*socket=*/true);
  shutdown(fds[0], SHUT_WR);
  return Collect(inner, model, options, child, fds[0]);
}

class IsolatedSolver : public MilpSolver {
 public:
  explicit IsolatedSolver(std::unique_ptr<MilpSolver> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }

  StatusOr<MilpResult> Solve(const MilpModel& model,
                             const MilpOptions& options) override {
    // fork copies one thread: with others running, a lock one of them held would stay
    // locked in the child. Then a worker process is started instead, where the host
    // registered one (the CLI, the Python module). Without one, fork as before: every
    // process that links CBC has OpenBLAS's idle pool threads (they start when the
    // library loads), and forking past those has always held.
    if (const std::vector<std::string> command = WorkerCommand();
        !command.empty() && CountThreads() != 1) {
      if (auto solved = SolveInWorker(*inner_, command, model, options))
        return std::move(*solved);
    }
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
    return Collect(*inner_, model, options, child, fds[0]);
  }

 private:
  std::unique_ptr<MilpSolver> inner_;
};

}  // namespace

std::unique_ptr<MilpSolver> MakeIsolatedSolver(std::unique_ptr<MilpSolver> inner) {
  return std::make_unique<IsolatedSolver>(std::move(inner));
}

void SetMilpWorkerCommand(std::vector<std::string> command) {
  std::lock_guard<std::mutex> lock(worker_mutex);
  worker_command = std::move(command);
}

int RunMilpWorker() {
  // The request is all the parent writes before it shuts its side.
  std::optional<std::vector<char>> bytes =
      ReadUntil(kWorkerFd, std::chrono::steady_clock::time_point::max());
  if (!bytes) return 1;
  MilpModel model;
  MilpOptions options;
  if (!DecodeRequest(Reader(std::move(*bytes)), model, options)) return 1;
  Writer out;
  Encode(MakeCbcSolver()->Solve(model, options), out);
  return out.WriteTo(kWorkerFd, /*socket=*/true) ? 0 : 1;
}

std::unique_ptr<MilpSolver> MakeDefaultMilpSolver() {
  return MakeIsolatedSolver(MakeCbcSolver());
}

}  // namespace olla
