// Progress: one status line on stderr, redrawn at least once a second while a command
// runs, when stderr is a terminal (never in pipes, files or tests). The library reports
// through the callback (the stage, the best so far); a ticker thread redraws the line
// with the elapsed time, so a long stage that reports nothing still shows it is alive.
// The line is cleared when the Progress is destroyed. The first second stays quiet:
// most runs end before it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace olla::cli {

class Progress {
 public:
  Progress();
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Sets the status line; empty when stderr is not a terminal.
  std::function<void(const std::string&)> Callback();

 private:
  void Tick();

  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string line_;
  bool done_ = false;
  bool shown_ = false;
  bool enabled_ = false;
  std::thread ticker_;
};

}  // namespace olla::cli
