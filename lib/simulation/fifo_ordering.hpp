// SPDX-License-Identifier: GPL-2.0-or-later
// priority/basic: submission order, and the oracles that lower a plateauing
// study's jobs below everyone's.
#pragma once

#include "simulation/ordering.hpp"

namespace tune::sim {

class FifoOrdering : public Ordering {
 public:
  FifoOrdering(const OrderingSpec& spec, const OrderingSetup& setup);
  double period() const override { return period_; }
  double on_submit(OrderingHost& host, int j) override;
  // Only the evidence and reports oracles change their minds after submission.
  bool reorders() const override {
    return spec().lowering == Lowering::Oracle && spec().sight != OracleSight::Fate;
  }
  void reprioritise(OrderingHost& host, const std::vector<int>& pending, std::vector<double>& prio) override;

 private:
  double period_;
};

}  // namespace tune::sim
