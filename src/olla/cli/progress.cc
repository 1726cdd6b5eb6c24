#include "olla/cli/progress.h"

#include <iostream>

#include <fmt/format.h>
#include <unistd.h>

namespace olla::cli {

Progress::Progress() : enabled_(isatty(STDERR_FILENO) != 0) {
  if (enabled_) ticker_ = std::thread([this] { Tick(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  if (shown_) std::cerr << "\r\033[K" << std::flush;
}

std::function<void(const std::string&)> Progress::Callback() {
  if (!enabled_) return {};
  return [this](const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    line_ = line;
  };
}

void Progress::Tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_)
            .count();
    // Control characters from names in the line would garble the terminal.
    std::string line = line_;
    for (char& c : line) {
      if (static_cast<unsigned char>(c) < 0x20) c = '?';
    }
    std::cerr << fmt::format("\r\033[K{:.0f} s  {}", elapsed, line) << std::flush;
    shown_ = true;
  }
}

}  // namespace olla::cli
