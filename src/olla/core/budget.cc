#include "olla/core/budget.h"

#include <algorithm>
#include <cmath>

#include "olla/core/check.h"

namespace olla {
namespace {

Budget::Clock::time_point After(Budget::Clock::time_point start, double seconds) {
  // Durations past a few centuries overflow the clock's representation: no deadline.
  if (!(seconds < 1e9)) return Budget::Clock::time_point::max();
  return start + std::chrono::duration_cast<Budget::Clock::duration>(
                     std::chrono::duration<double>(std::max(seconds, 0.0)));
}

}  // namespace

Budget::Budget()
    : account_(std::make_shared<Account>()),
      stop_(std::make_shared<std::atomic<bool>>(false)) {}

Budget Budget::Of(double seconds, int64_t work) {
  OLLA_CHECK(!std::isnan(seconds) && seconds >= 0 && work >= 0,
             "a budget needs a non-negative time and work");
  Budget budget;
  budget.deadline_ = After(Clock::now(), seconds);
  budget.account_->limit = work;
  return budget;
}

Budget Budget::Split(double fraction) const {
  OLLA_CHECK(fraction >= 0 && fraction <= 1, "a budget splits by a fraction in [0, 1]");
  Budget part = *this;
  if (has_deadline()) {
    const Clock::time_point now = Clock::now();
    part.deadline_ = now >= deadline_ ? deadline_
                                      : now + std::chrono::duration_cast<Clock::duration>(
                                                  (deadline_ - now) * fraction);
  }
  part.account_ = std::make_shared<Account>();
  part.account_->whole = account_;
  const int64_t left = work_left();
  part.account_->limit =
      left == kUnlimitedWork
          ? kUnlimitedWork
          : static_cast<int64_t>(static_cast<double>(std::max<int64_t>(left, 0)) *
                                 fraction);
  return part;
}

Budget Budget::Reserving(double seconds) const {
  Budget part = *this;
  const Clock::time_point now = Clock::now();
  if (has_deadline() && seconds > 0 && now < deadline_) {
    const Clock::duration left = deadline_ - now;
    const auto wanted = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::min(seconds, 1e9)));
    part.deadline_ = deadline_ - std::min(wanted, left / 2);
  }
  return part;
}

bool Budget::Spend(int64_t units) const {
  for (Account* account = account_.get(); account != nullptr;
       account = account->whole.get()) {
    account->spent.fetch_add(units, std::memory_order_relaxed);
  }
  return work_left() > 0;
}

int64_t Budget::work_left() const {
  int64_t left = kUnlimitedWork;
  for (const Account* account = account_.get(); account != nullptr;
       account = account->whole.get()) {
    if (account->limit == kUnlimitedWork) continue;
    left =
        std::min(left, account->limit - account->spent.load(std::memory_order_relaxed));
  }
  return left;
}

int64_t Budget::work_spent() const {
  return account_->spent.load(std::memory_order_relaxed);
}

double Budget::seconds_left() const {
  if (!has_deadline()) return kNoDeadline;
  const Clock::time_point now = Clock::now();
  return now >= deadline_ ? 0.0 : std::chrono::duration<double>(deadline_ - now).count();
}

bool Budget::OutOfTime() const {
  return stop_->load(std::memory_order_relaxed) ||
         (has_deadline() && Clock::now() >= deadline_);
}

Budget::Limit Budget::Reached() const {
  if (stop_->load(std::memory_order_relaxed)) return Limit::kStop;
  if (work_left() <= 0) return Limit::kWork;
  if (has_deadline() && Clock::now() >= deadline_) return Limit::kTime;
  return Limit::kNone;
}

const char* LimitName(Budget::Limit limit) {
  switch (limit) {
    case Budget::Limit::kNone:
      return "none";
    case Budget::Limit::kTime:
      return "time";
    case Budget::Limit::kWork:
      return "work";
    case Budget::Limit::kStop:
      return "stop";
  }
  return "none";
}

}  // namespace olla
