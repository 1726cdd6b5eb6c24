// Budget: what a computation may spend, and the one object every long loop checks.
//
// A budget has three limits, any of which ends it: a wall-clock deadline, a number of
// deterministic work units, and a stop request (cancellation from another thread).
// Work units are each search's natural step (a search node, a local-search move, an ILP
// branch-and-bound node), counted so that the same input and work limit give the same
// result on any machine and any load: tests pass work limits, never wall-clock ones.
//
// A stage hands a part of its budget to a sub-stage with Split(fraction): the part gets
// that fraction of the time and of the work still left, and whatever the part spends
// is spent from the whole too. A Budget is a handle: copies share their account and
// their stop flag, so one RequestStop() ends every part. Spend() and the checks are
// thread-safe. Cost: a check reads the clock only when the budget has a deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

namespace olla {

class Budget {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int64_t kUnlimitedWork = std::numeric_limits<int64_t>::max();

  // Which limit ended a budget.
  enum class Limit { kNone, kTime, kWork, kStop };

  // Unlimited: no deadline, no work limit.
  Budget();
  // `seconds` from now (infinity: no deadline) and `work` units (kUnlimitedWork: none).
  static Budget Of(double seconds, int64_t work = kUnlimitedWork);
  static Budget OfWork(int64_t work) { return Of(kNoDeadline, work); }

  // A part with `fraction` (in [0, 1]) of the time and work left; its spending counts
  // here too, and it shares the stop flag.
  Budget Split(double fraction) const;

  // A part that ends `seconds` before this budget does (keeping at least half of the
  // time left), for the stages that must run after it; the same work account and stop
  // flag, so work limits give the same results with or without the reserve.
  Budget Reserving(double seconds) const;
  // Records `units` of work; false once the work (of this part or of a whole it was split
  // from) is used up.
  bool Spend(int64_t units = 1) const;

  // The work still allowed (kUnlimitedWork when unlimited), and the work spent in this
  // part.
  int64_t work_left() const;
  int64_t work_spent() const;
  bool has_work_limit() const { return work_left() != kUnlimitedWork; }

  Clock::time_point deadline() const { return deadline_; }
  bool has_deadline() const { return deadline_ != Clock::time_point::max(); }
  // Seconds to the deadline, never negative; infinity without one.
  double seconds_left() const;

  // The deadline passed or a stop was requested. Cheap enough for every few nodes.
  bool OutOfTime() const;
  // Out of time or out of work.
  bool Exhausted() const { return OutOfTime() || work_left() <= 0; }
  // The limit that has run out, kNone while the budget lasts.
  Limit Reached() const;

  // Asks every holder of this budget (and of every part split from it) to stop.
  void RequestStop() const { stop_->store(true, std::memory_order_relaxed); }

 private:
  static constexpr double kNoDeadline = std::numeric_limits<double>::infinity();
  struct Account {
    std::atomic<int64_t> spent{0};
    int64_t limit = kUnlimitedWork;
    std::shared_ptr<Account> whole;  // The account this part was split from.
  };

  Clock::time_point deadline_ = Clock::time_point::max();
  std::shared_ptr<Account> account_;
  std::shared_ptr<std::atomic<bool>> stop_;
};

// "time", "work", "stop" or "none": how plans and reports name a limit.
const char* LimitName(Budget::Limit limit);

}  // namespace olla
