// The importers' two building blocks on their own: Kubernetes quantities as exact integers, and
// the streamed JSON reader's limits and positions.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "json_stream.h"
#include "k8s_quantity.h"

namespace allocore::adapters::internal {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& status) {
  return std::string(status.message().data(), status.message().size());
}

int64_t Units(std::string_view text) {
  absl::StatusOr<QuantityValue> value = ParseKubernetesQuantity(text, false);
  EXPECT_TRUE(value.ok()) << text << ": " << Message(value.status());
  return value.ok() ? value->value : -1;
}

int64_t Milli(std::string_view text) {
  absl::StatusOr<QuantityValue> value = ParseKubernetesQuantity(text, true);
  EXPECT_TRUE(value.ok()) << text << ": " << Message(value.status());
  return value.ok() ? value->value : -1;
}

std::string QuantityError(std::string_view text) {
  absl::StatusOr<QuantityValue> value = ParseKubernetesQuantity(text, false);
  EXPECT_FALSE(value.ok()) << text << " parsed as " << (value.ok() ? value->value : 0);
  return value.ok() ? "" : Message(value.status());
}

TEST(KubernetesQuantityTest, SuffixesAsKubernetesWritesThem) {
  EXPECT_EQ(Units("1"), 1);
  EXPECT_EQ(Units("1Ki"), 1024);
  EXPECT_EQ(Units("1.5Gi"), 1610612736);
  EXPECT_EQ(Units("16Gi"), int64_t{17179869184});
  EXPECT_EQ(Units("1k"), 1000);
  EXPECT_EQ(Units("2e3"), 2000);
  EXPECT_EQ(Units("2E3"), 2000);
  EXPECT_EQ(Units("1E"), int64_t{1000000000000000000});
  EXPECT_EQ(Units("7Ei"), int64_t{7} << 60);
  EXPECT_EQ(Units("+5M"), 5000000);
  EXPECT_EQ(Units("0"), 0);
  EXPECT_EQ(Units("-0"), 0);
  EXPECT_EQ(Units(".5k"), 500);
  EXPECT_EQ(Units("5."), 5);
  EXPECT_EQ(Units("000123"), 123);
}

TEST(KubernetesQuantityTest, CpuInThousandths) {
  EXPECT_EQ(Milli("4"), 4000);
  EXPECT_EQ(Milli("100m"), 100);
  EXPECT_EQ(Milli("0.25"), 250);
  EXPECT_EQ(Milli("1500u"), 2);  // 1.5 thousandths round up, as MilliValue() does
  EXPECT_EQ(Milli("1n"), 1);
}

TEST(KubernetesQuantityTest, RoundsUpAndSaysSo) {
  absl::StatusOr<QuantityValue> half = ParseKubernetesQuantity("0.5", false);
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->value, 1);
  EXPECT_TRUE(half->rounded);
  absl::StatusOr<QuantityValue> exact = ParseKubernetesQuantity("1.5Ki", false);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->value, 1536);
  EXPECT_FALSE(exact->rounded);
  absl::StatusOr<QuantityValue> tiny = ParseKubernetesQuantity("1e-900", false);
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->value, 1);
  EXPECT_TRUE(tiny->rounded);
}

TEST(KubernetesQuantityTest, EdgesOfInt64) {
  EXPECT_EQ(Units("9223372036854775807"), INT64_MAX);
  EXPECT_THAT(QuantityError("9223372036854775808"), HasSubstr("more than"));
  EXPECT_THAT(QuantityError("8Ei"), HasSubstr("more than"));
  EXPECT_THAT(QuantityError("99999999999999999999Ei"), HasSubstr("more than"));
  EXPECT_THAT(QuantityError("1e19"), HasSubstr("more than"));
  absl::StatusOr<QuantityValue> cpu = ParseKubernetesQuantity("9223372036854776", true);
  EXPECT_FALSE(cpu.ok());
}

TEST(KubernetesQuantityTest, RefusesWhatKubernetesRefuses) {
  EXPECT_THAT(QuantityError(""), HasSubstr("empty"));
  EXPECT_THAT(QuantityError("-1"), HasSubstr("negative"));
  EXPECT_THAT(QuantityError("12Qi"), HasSubstr("unknown suffix \"Qi\""));
  EXPECT_THAT(QuantityError("1KI"), HasSubstr("unknown suffix"));
  EXPECT_THAT(QuantityError("Gi"), HasSubstr("not a number"));
  EXPECT_THAT(QuantityError("1e"), HasSubstr("unknown suffix"));
  EXPECT_THAT(QuantityError("1e+"), HasSubstr("exponent without digits"));
  EXPECT_THAT(QuantityError("1e5000"), HasSubstr("exponent out of range"));
  EXPECT_THAT(QuantityError("1.2.3"), HasSubstr("unknown suffix"));
  EXPECT_THAT(QuantityError(std::string(40, '9')), HasSubstr("significant digits"));
}

// ---------------------------------------------------------------------------------------------

struct Seen {
  std::string key;
  int64_t index = -1;
  std::string kind;
  int64_t line = 0;
};

absl::Status Stream(std::string_view text, std::vector<Seen>* seen,
                    const JsonStreamLimits& limits = {}) {
  return StreamJsonText(text, "doc.json", limits,
                        [seen](const JsonElementPath& path, JsonValue&& value) {
                          seen->push_back(Seen{std::string(path.key), path.index.value_or(-1),
                                               std::string(JsonKindName(value.kind)), value.line});
                          return absl::OkStatus();
                        });
}

TEST(JsonStreamTest, HandsOverMembersAndEachElementOfTopLevelLists) {
  std::vector<Seen> seen;
  ASSERT_TRUE(
      Stream("{\"a\": 1,\n \"list\": [{\"x\": [1, 2]}, \"s\", null],\n \"o\": {}}", &seen).ok());
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0].key, "a");
  EXPECT_EQ(seen[0].index, -1);
  EXPECT_EQ(seen[0].kind, "a number");
  EXPECT_EQ(seen[1].key, "list");
  EXPECT_EQ(seen[1].index, 0);
  EXPECT_EQ(seen[1].kind, "an object");
  EXPECT_EQ(seen[1].line, 2);
  EXPECT_EQ(seen[2].index, 1);
  EXPECT_EQ(seen[3].kind, "null");
  EXPECT_EQ(seen[4].key, "o");
  EXPECT_EQ(seen[4].line, 3);
}

TEST(JsonStreamTest, KeepsNumbersAsWrittenAndNestedTreesWhole) {
  JsonValue kept;
  absl::Status status = StreamJsonText(
      "{\"t\": {\"n\": 1795811105479097510, \"f\": 1.5e3, \"k\": {\"deep\": [true]}}}", "d", {},
      [&kept](const JsonElementPath&, JsonValue&& value) {
        kept = std::move(value);
        return absl::OkStatus();
      });
  ASSERT_TRUE(status.ok()) << Message(status);
  ASSERT_NE(kept.Find("n"), nullptr);
  EXPECT_EQ(kept.Find("n")->text, "1795811105479097510");
  EXPECT_EQ(kept.Find("f")->text, "1.5e3");
  const JsonValue* deep = kept.Find("k")->Find("deep");
  ASSERT_NE(deep, nullptr);
  ASSERT_EQ(deep->items.size(), 1u);
  EXPECT_TRUE(deep->items[0].boolean);
}

TEST(JsonStreamTest, MalformedJsonNamesLineAndColumn) {
  std::vector<Seen> seen;
  absl::Status status = Stream("{\"a\": [1,\n 2,,\n]}", &seen);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), HasSubstr("doc.json:2:"));
  EXPECT_THAT(Message(status), HasSubstr("malformed JSON"));
}

TEST(JsonStreamTest, RefusesWhatIsNotAnObjectAndBadEncodings) {
  std::vector<Seen> seen;
  EXPECT_THAT(Message(Stream("[1, 2]", &seen)), HasSubstr("not a JSON object"));
  EXPECT_THAT(Message(Stream("", &seen)), HasSubstr("malformed JSON"));
  EXPECT_THAT(Message(Stream("{\"a\": \"\xff\"}", &seen)), HasSubstr("malformed JSON"));
  EXPECT_THAT(Message(Stream("{\"a\": 1} trailing", &seen)), HasSubstr("malformed JSON"));
}

TEST(JsonStreamTest, DeepNestingIsRefusedAtTheLimitNotByTheStack) {
  std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  std::vector<Seen> seen;
  absl::Status status = Stream(deep, &seen);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(Message(status), HasSubstr("nesting deeper than 64 levels"));
}

TEST(JsonStreamTest, DocumentAndElementLimits) {
  std::vector<Seen> seen;
  JsonStreamLimits small;
  small.max_document_bytes = 16;
  EXPECT_THAT(Message(Stream("{\"aaaaaaaaaaaaaaaaaaa\": 1}", &seen, small)),
              HasSubstr("larger than 16 bytes"));
  seen.clear();
  EXPECT_TRUE(Stream("{\"a\": 1}", &seen, small).ok());  // at the limit is fine
  JsonStreamLimits element;
  element.max_element_bytes = 64;
  seen.clear();
  absl::Status status = Stream(
      "{\"items\": [{\"k\": 1}, {\"k\": \"" + std::string(64, 'x') + "\"}]}", &seen, element);
  EXPECT_THAT(Message(status), HasSubstr("one element of \"items\" holds more than 64 bytes"));
  EXPECT_EQ(seen.size(), 1u);  // the first, small element came through
}

// A long list inside an element comes item by item before its element, which then holds the
// list empty; a skipped list is never built. So an application of many allocations is held
// one allocation at a time.
TEST(JsonStreamTest, SplitListsComeItemByItemAndSkippedOnesNotAtAll) {
  const std::string doc =
      R"({"Apps": [{"id": "a", "allocs": [{"k": 1}, {"k": 2}], "more": 1}],
          "Nodes": [{"nodesInfo": [{"n": 1, "allocations": [1, 2, 3]}], "p": "x"}]})";
  JsonStreamShape shape;
  shape.split = {{"Apps", "allocs"}, {"Nodes", "nodesInfo"}};
  shape.skip = {{"Nodes", {"nodesInfo", "[]", "allocations"}}};
  std::vector<std::string> seen;
  absl::Status status = StreamJsonText(
      doc, "d", {},
      [&seen](const JsonElementPath& path, JsonValue&& value) {
        std::string what = std::string(path.key) + "[" + std::to_string(*path.index) + "]";
        if (!path.member.empty()) {
          what += "." + std::string(path.member) + "[" + std::to_string(*path.member_index) + "]";
        }
        for (size_t i = 0; i < value.keys.size(); ++i) {
          what += " " + value.keys[i] + "=" +
                  (value.items[i].kind == JsonValue::Kind::kArray
                       ? "list of " + std::to_string(value.items[i].items.size())
                       : value.items[i].text);
        }
        seen.push_back(what);
        return absl::OkStatus();
      },
      shape);
  ASSERT_TRUE(status.ok()) << Message(status);
  EXPECT_THAT(seen, ::testing::ElementsAre("Apps[0].allocs[0] k=1", "Apps[0].allocs[1] k=2",
                                           "Apps[0] id=a allocs=list of 0 more=1",
                                           "Nodes[0].nodesInfo[0] n=1",
                                           "Nodes[0] nodesInfo=list of 0 p=x"));

  // The element limit holds each item, not the element with all its items.
  std::string big = R"({"Apps": [{"id": "a", "allocs": [)";
  for (int i = 0; i < 1000; ++i) big += std::string(i > 0 ? "," : "") + R"({"k": 1})";
  big += "]}]}";
  JsonStreamLimits small;
  small.max_element_bytes = 256;
  auto count = [](const JsonElementPath&, JsonValue&&) { return absl::OkStatus(); };
  EXPECT_TRUE(StreamJsonText(big, "d", small, count, shape).ok());
  EXPECT_THAT(Message(StreamJsonText(big, "d", small, count)),
              HasSubstr("one element of \"Apps\" holds more than 256 bytes"));
}

TEST(JsonStreamTest, AnErrorOfTheSinkStopsTheRead) {
  int calls = 0;
  absl::Status status = StreamJsonText("{\"items\": [1, 2, 3]}", "d", {},
                                       [&calls](const JsonElementPath&, JsonValue&&) {
                                         ++calls;
                                         return absl::InvalidArgumentError("stop here");
                                       });
  EXPECT_EQ(Message(status), "stop here");
  EXPECT_EQ(calls, 1);
}

TEST(JsonStreamTest, AMissingFileIsNotFound) {
  absl::Status status =
      StreamJsonFile("/nonexistent/dump.json", {}, [](auto&&, auto&&) { return absl::OkStatus(); });
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(status), HasSubstr("/nonexistent/dump.json"));
}

}  // namespace
}  // namespace allocore::adapters::internal
