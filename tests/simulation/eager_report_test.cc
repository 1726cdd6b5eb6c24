#include "olla/simulation/eager_report.h"

#include <gtest/gtest.h>

#include "graph_builder.h"

namespace olla {
namespace {

TEST(EagerReportTest, Figure3) {
  const EagerReport report = SimulateEager(testing::Figure3Graph());
  EXPECT_EQ(report.ops, 4);
  EXPECT_EQ(report.buffers, 6);
  EXPECT_EQ(report.persistent_bytes, 0);
  EXPECT_EQ(report.critical_path_length, 3);
  EXPECT_EQ(report.peak_live_bytes, 62914560);
  EXPECT_EQ(report.peak_op, OpId(1));
  EXPECT_EQ(report.allocator.reserved_peak_bytes, 70 * testing::kMiB);
  EXPECT_EQ(report.bounds.best(), 47185920);
}

}  // namespace
}  // namespace olla
