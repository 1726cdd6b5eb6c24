// Wrappers that compose OrderSearches (order_search.h) into Schedule()'s methods.
#pragma once

#include <memory>
#include <vector>

#include "olla/schedule/order_search.h"

namespace olla {

// Runs `steps` in turn on one state and one budget.
std::unique_ptr<OrderSearch> Sequence(std::vector<std::unique_ptr<OrderSearch>> steps);

// Runs `inner` with budget.Split(share): the rest is left to the searches after it.
std::unique_ptr<OrderSearch> WithShare(double share, std::unique_ptr<OrderSearch> inner);

// Runs `inner`, then raises the bound at the order it left when that order is new and
// above the bound: with cuts at the ops above the bound (analysis/min_cut_bound.h) in a
// quarter of the budget, then case splits at its peak ops
// (analysis/case_split_bound.h) in `split_share` of what is left. Raised before a
// search, the bound lets it stop early (pieces at it are not searched, local search
// stops there); raised after, it may prove the new order optimal.
std::unique_ptr<OrderSearch> RaisingTheBound(std::unique_ptr<OrderSearch> inner,
                                             double split_share = 0.25);

// The updates rule restricts the orders searched (optimizer ops as soon as ready),
// which usually costs nothing. On some graphs it costs a lot (shufflenet_v2 with SGD
// weight decay: each update's temporaries land in the backward's peak, and under the
// rule every order peaks 3 % above eager, 18 % above the best order without it). When
// the state's start, the eager order under the rule, peaks above the eager order
// itself, `inner` runs without the rule from the eager order without it, and the state
// says the rule was dropped.
std::unique_ptr<OrderSearch> UpdatesRuleFallback(std::unique_ptr<OrderSearch> inner);

}  // namespace olla
