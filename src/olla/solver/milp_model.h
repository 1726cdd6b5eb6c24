// MilpModel: a mixed-integer linear program, independent of any solver.
//
// Formulations (the location ILP, the lifetime ILP) build a MilpModel and decode a
// MilpResult; only solver adapters (solver/cbc/) talk to a vendor library. Constraints
// are ranges, lower <= sum(coefficient * variable) <= upper, with infinities for
// one-sided rows. Validate() names the first bad variable or constraint.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "olla/core/status.h"

namespace olla {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct MilpVariable {
  std::string name;
  double lower = 0.0;
  double upper = kInfinity;
  double objective = 0.0;
  bool integer = false;
};

struct MilpTerm {
  int32_t variable = 0;
  double coefficient = 0.0;
};

struct MilpConstraint {
  std::string name;
  std::vector<MilpTerm> terms;
  double lower = -kInfinity;
  double upper = kInfinity;
};

class MilpModel {
 public:
  int32_t AddVariable(std::string name, double lower, double upper, double objective,
                      bool integer);
  int32_t AddBinary(std::string name, double objective = 0.0) {
    return AddVariable(std::move(name), 0.0, 1.0, objective, true);
  }
  void AddConstraint(std::string name, std::vector<MilpTerm> terms, double lower,
                     double upper);
  void set_maximize(bool maximize) { maximize_ = maximize; }

  bool maximize() const { return maximize_; }
  const std::vector<MilpVariable>& variables() const { return variables_; }
  // For formulations that tighten a bound after adding a variable.
  MilpVariable& mutable_variable(int32_t index) {
    return variables_[static_cast<size_t>(index)];
  }
  const std::vector<MilpConstraint>& constraints() const { return constraints_; }
  int32_t num_variables() const { return static_cast<int32_t>(variables_.size()); }

  // Ok when every bound and coefficient is a number, every lower <= upper, and every
  // term names an existing variable.
  Status Validate() const;
  // The objective value of `values` (one per variable).
  double Objective(const std::vector<double>& values) const;
  // Whether `values` (one per variable) meet every bound, integrality and constraint,
  // each within `tolerance`.
  bool IsFeasible(const std::vector<double>& values, double tolerance = 1e-6) const;

 private:
  std::vector<MilpVariable> variables_;
  std::vector<MilpConstraint> constraints_;
  bool maximize_ = false;
};

}  // namespace olla
