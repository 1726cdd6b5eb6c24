#include "olla/core/status.h"

#include <gtest/gtest.h>

namespace olla {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidInput("odd: " + std::to_string(x));
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  OLLA_ASSIGN_OR_RETURN(const int half, Half(x));
  return Half(half);
}

Status CheckEven(int x) {
  OLLA_RETURN_IF_ERROR(Half(x).status());
  return OkStatus();
}

TEST(StatusTest, OkByDefault) {
  const Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_EQ(InvalidInput("bad").WithContext("file.json").message(), "file.json: bad");
  EXPECT_TRUE(OkStatus().WithContext("file.json").ok());
  EXPECT_EQ(NotFound("x").WithContext("f").code(), StatusCode::kNotFound);
}

TEST(StatusTest, MessagesAreOneLineWhateverTheyQuote) {
  const Status status = InvalidInput("unknown field 'a\nb\tc\x1b[31m\x7f'");
  EXPECT_EQ(status.message(), "unknown field 'a\\x0ab\\x09c\\x1b[31m\\x7f'");
  EXPECT_EQ(status.WithContext("f\r.json").message(),
            "f\\x0d.json: unknown field 'a\\x0ab\\x09c\\x1b[31m\\x7f'");
  EXPECT_EQ(Internal("plain").message(), "plain");
}

TEST(StatusOrTest, CarriesValueOrError) {
  EXPECT_EQ(*Quarter(8), 2);
  const StatusOr<int> odd = Quarter(6);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(), "odd: 3");
  EXPECT_EQ(odd.status().code(), StatusCode::kInvalidInput);
}

TEST(StatusOrTest, ReturnIfErrorPropagates) {
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(5).message(), "odd: 5");
}

TEST(StatusOrDeathTest, ValueOfErrorAborts) {
  const StatusOr<int> odd = Half(3);
  EXPECT_DEATH((void)odd.value(), "value\\(\\) on an error StatusOr: odd: 3");
}

}  // namespace
}  // namespace olla
