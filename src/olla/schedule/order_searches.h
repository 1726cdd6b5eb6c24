// The scheduling methods as OrderSearch implementations (order_search.h). Each keeps an
// order only if it peaks lower than the state's, and a bound only if it is higher.
#pragma once

#include <memory>

#include "olla/schedule/order_search.h"

namespace olla {

// The best of the heuristic orders (heuristics.h), replacing the state's start (the
// eager order under the rules, which is among them); recorded as the best heuristic.
// Skipped when the budget is out of time.
std::unique_ptr<OrderSearch> HeuristicSearch();

// The exact search piece by piece from the state's order (piecewise.h); its proven
// bound raises the state's. Skipped when the order is at the bound or out of time.
std::unique_ptr<OrderSearch> PieceSearch();

// OLLA's lifetime ILP on CBC (lifetime_ilp.h), started from the state's order, which
// stays if the solver returns nothing better; under one op per step its bound holds for
// every order.
std::unique_ptr<OrderSearch> LifetimeIlpSearch();

// Local search from the state's order down to the bound (local_search.h). Skipped when
// the order is at the bound or out of time.
std::unique_ptr<OrderSearch> LocalOrderSearch();

}  // namespace olla
