#include "olla/solver/milp_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace olla {

int32_t MilpModel::AddVariable(std::string name, double lower, double upper,
                               double objective, bool integer) {
  variables_.push_back({std::move(name), lower, upper, objective, integer});
  return static_cast<int32_t>(variables_.size() - 1);
}

void MilpModel::AddConstraint(std::string name, std::vector<MilpTerm> terms, double lower,
                              double upper) {
  constraints_.push_back({std::move(name), std::move(terms), lower, upper});
}

Status MilpModel::Validate() const {
  for (const MilpVariable& v : variables_) {
    if (std::isnan(v.lower) || std::isnan(v.upper) || !std::isfinite(v.objective)) {
      return InvalidInput(
          fmt::format("variable '{}': bound or objective is not a number", v.name));
    }
    if (v.lower > v.upper) {
      return InvalidInput(
          fmt::format("variable '{}': lower bound {} exceeds upper bound {}", v.name,
                      v.lower, v.upper));
    }
  }
  std::vector<int32_t> seen;
  for (const MilpConstraint& c : constraints_) {
    // CBC takes a row that names a column twice without complaint and solves another
    // model (the joint ILP was infeasible that way): one term per variable.
    seen.clear();
    for (const MilpTerm& t : c.terms) seen.push_back(t.variable);
    std::sort(seen.begin(), seen.end());
    if (const auto twice = std::adjacent_find(seen.begin(), seen.end());
        twice != seen.end() && *twice >= 0 && *twice < num_variables()) {
      return InvalidInput(fmt::format("constraint '{}': variable '{}' appears twice",
                                      c.name,
                                      variables_[static_cast<size_t>(*twice)].name));
    }
    if (std::isnan(c.lower) || std::isnan(c.upper) || c.lower > c.upper) {
      return InvalidInput(
          fmt::format("constraint '{}': range [{}, {}] is empty or not a number", c.name,
                      c.lower, c.upper));
    }
    for (const MilpTerm& t : c.terms) {
      if (t.variable < 0 || t.variable >= num_variables()) {
        return InvalidInput(fmt::format("constraint '{}': no variable with index {}",
                                        c.name, t.variable));
      }
      if (!std::isfinite(t.coefficient)) {
        return InvalidInput(
            fmt::format("constraint '{}': coefficient of '{}' is not finite", c.name,
                        variables_[static_cast<size_t>(t.variable)].name));
      }
    }
  }
  return OkStatus();
}

double MilpModel::Objective(const std::vector<double>& values) const {
  double total = 0.0;
  for (size_t i = 0; i < variables_.size(); ++i)
    total += variables_[i].objective * values[i];
  return total;
}

bool MilpModel::IsFeasible(const std::vector<double>& values, double tolerance) const {
  if (values.size() != variables_.size()) return false;
  for (size_t i = 0; i < variables_.size(); ++i) {
    const MilpVariable& v = variables_[i];
    const double x = values[i];
    if (!(x >= v.lower - tolerance && x <= v.upper + tolerance)) return false;
    if (v.integer && std::abs(x - std::round(x)) > tolerance) return false;
  }
  for (const MilpConstraint& c : constraints_) {
    double sum = 0.0;
    for (const MilpTerm& t : c.terms) sum += t.coefficient * values[t.variable];
    if (!(sum >= c.lower - tolerance && sum <= c.upper + tolerance)) return false;
  }
  return true;
}

}  // namespace olla
