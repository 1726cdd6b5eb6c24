#include "olla/io/json_object.h"

#include <gtest/gtest.h>

namespace olla {
namespace {

using json = JsonValue;

TEST(JsonObjectTest, ReadsTypedFieldsWithDefaults) {
  const json value = json::parse(R"({"id": 3, "name": "x", "flag": true, "list": [1]})");
  JsonObject object(value, "ops[2]");
  EXPECT_EQ(object.Int("id"), 3);
  EXPECT_EQ(object.String("name"), "x");
  EXPECT_TRUE(object.Bool("flag", false));
  EXPECT_EQ(object.Int("missing", 9), 9);
  EXPECT_EQ(object.String("other", "dflt"), "dflt");
  EXPECT_NE(object.Array("list"), nullptr);
  EXPECT_EQ(object.OptionalArray("absent"), nullptr);
  EXPECT_TRUE(object.Finish().ok());
}

TEST(JsonObjectTest, NamesThePathOfTheFirstError) {
  const json value = json::parse(R"({"id": "three", "size": -1})");
  JsonObject object(value, "buffers[4]");
  object.Int("id");
  object.Int("size");
  EXPECT_EQ(object.status().message(),
            "buffers[4].id: expected an integer, got a string");
}

TEST(JsonObjectTest, RejectsMissingUnknownAndMistypedFields) {
  const json value = json::parse(R"({"persistant": true})");
  JsonObject missing(value, "buffers[0]");
  missing.Int("id");
  EXPECT_EQ(missing.status().message(), "buffers[0]: missing required field 'id'");
  JsonObject unknown(value, "buffers[0]");
  unknown.Bool("persistent", false);
  EXPECT_EQ(unknown.Finish().message(), "buffers[0].persistant: unknown field");
  const json top = json::parse(R"({"version": 1.5})");
  JsonObject fractional(top, "");
  fractional.Int("version");
  EXPECT_EQ(fractional.status().message(),
            "version: expected an integer, got 1.5 (too large or fractional)");
  const json not_object = json::parse("[1]");
  EXPECT_EQ(JsonObject(not_object, "").status().message(),
            "top level: expected an object, got an array");
}

TEST(JsonObjectTest, RejectsIntegersBeyond64Bits) {
  const json value = json::parse(R"({"size": 9223372036854775808})");
  JsonObject object(value, "buffers[0]");
  object.Int("size");
  EXPECT_EQ(object.status().message(),
            "buffers[0].size: integer does not fit in 64 bits");
}

}  // namespace
}  // namespace olla
