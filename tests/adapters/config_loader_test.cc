// Tests of the config loader: the YAML corpus under tests/configs (every validation rule has
// a config that trips it and one just inside it), JSON round trips, text encodings, and
// hostile input.
//
// Corpus files state their expectations in comments:
//   `# expect: SUBSTRING`          an error on this line whose message contains SUBSTRING
//   `# expect-warning: SUBSTRING`  a warning on this line
//   `# expect-at: LINE: SUBSTRING` an error on LINE (for positions a comment cannot sit on)
// Several markers may share a line. Every reported problem must be expected, and vice versa.
#include "allocore/adapters/config_loader.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "../../adapters/config/yaml_config_decode.h"
#include "allocore/config.h"
#include "allocore/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/files.h"
#include "yaml-cpp/yaml.h"

namespace allocore {

void PrintTo(const ConfigError& e, std::ostream* os) { *os << e.ToString("config"); }

namespace adapters {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

namespace fs = std::filesystem;
using test_support::ReadFile;

const fs::path kConfigs = fs::path(ALLOCORE_SOURCE_DIR) / "tests" / "configs";

std::vector<fs::path> CorpusFiles(std::string_view dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kConfigs / dir)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Expectation {
  int line;
  bool warning;
  std::string text;
};

std::vector<Expectation> ParseExpectations(const std::string& text) {
  std::vector<Expectation> out;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    static constexpr std::string_view kMarkers[] = {
        "# expect: ", "# expect-warning: ", "# expect-at: "};
    size_t pos = 0;
    while (true) {
      size_t best = std::string::npos;
      size_t which = 0;
      for (size_t m = 0; m < std::size(kMarkers); ++m) {
        size_t found = line.find(kMarkers[m], pos);
        if (found < best) {
          best = found;
          which = m;
        }
      }
      if (best == std::string::npos) break;
      size_t start = best + kMarkers[which].size();
      size_t next = line.find("# expect", start);
      std::string body = line.substr(start, next == std::string::npos ? next : next - start);
      while (!body.empty() && body.back() == ' ') body.pop_back();
      Expectation e{number, which == 1, body};
      if (which == 2) {
        size_t colon = body.find(": ");
        e.line = std::stoi(body.substr(0, colon));
        e.text = body.substr(colon + 2);
      }
      out.push_back(e);
      pos = start;
    }
  }
  return out;
}

// Every expectation is met by a problem on its line, and every problem is expected.
void CheckExpectations(const std::string& name, const std::string& text,
                       const std::vector<ConfigError>& errors) {
  std::vector<Expectation> expected = ParseExpectations(text);
  for (const Expectation& e : expected) {
    bool met = std::any_of(errors.begin(), errors.end(), [&](const ConfigError& error) {
      return error.location.line == e.line && error.warning == e.warning &&
             error.message.find(e.text) != std::string::npos;
    });
    EXPECT_TRUE(met) << name << ":" << e.line << ": expected " << (e.warning ? "warning" : "error")
                     << " containing \"" << e.text << "\"";
  }
  for (const ConfigError& error : errors) {
    bool wanted = std::any_of(expected.begin(), expected.end(), [&](const Expectation& e) {
      return error.location.line == e.line && error.warning == e.warning &&
             error.message.find(e.text) != std::string::npos;
    });
    EXPECT_TRUE(wanted) << "unexpected: " << error.ToString(name);
  }
}

// ---- Structural equality, ignoring source locations -------------------------------------

bool Same(const PlacementRuleConfig& a, const PlacementRuleConfig& b);
bool Same(const QueueConfig& a, const QueueConfig& b);
bool Same(const PartitionConfig& a, const PartitionConfig& b);

bool Same(const LimitConfig& a, const LimitConfig& b) {
  return std::tie(a.limit, a.users, a.groups, a.max_resources, a.max_applications) ==
         std::tie(b.limit, b.users, b.groups, b.max_resources, b.max_applications);
}

template <typename T>
bool SameList(const std::vector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const T& x, const T& y) { return Same(x, y); });
}

bool Same(const ResourcesConfig& a, const ResourcesConfig& b) {
  return a.guaranteed == b.guaranteed && a.max == b.max;
}

bool Same(const PlacementRuleConfig& a, const PlacementRuleConfig& b) {
  return std::tie(a.name, a.create, a.value, a.filter.type, a.filter.users, a.filter.groups) ==
             std::tie(b.name, b.create, b.value, b.filter.type, b.filter.users, b.filter.groups) &&
         SameList(a.parent, b.parent);
}

bool Same(const QueueConfig& a, const QueueConfig& b) {
  if (std::tie(a.name, a.parent, a.max_applications, a.properties, a.admin_acl, a.submit_acl) !=
      std::tie(b.name, b.parent, b.max_applications, b.properties, b.admin_acl, b.submit_acl)) {
    return false;
  }
  if (!Same(a.resources, b.resources)) return false;
  if (a.child_template.has_value() != b.child_template.has_value()) return false;
  if (a.child_template &&
      (a.child_template->max_applications != b.child_template->max_applications ||
       a.child_template->properties != b.child_template->properties ||
       !Same(a.child_template->resources, b.child_template->resources))) {
    return false;
  }
  return SameList(a.queues, b.queues) && SameList(a.limits, b.limits);
}

bool Same(const PartitionConfig& a, const PartitionConfig& b) {
  return std::tie(a.name, a.queues_present, a.preemption_enabled, a.node_sort_policy.type,
                  a.node_sort_policy.resource_weights, a.state_dump_file_path) ==
             std::tie(b.name, b.queues_present, b.preemption_enabled, b.node_sort_policy.type,
                      b.node_sort_policy.resource_weights, b.state_dump_file_path) &&
         SameList(a.queues, b.queues) && SameList(a.placement_rules, b.placement_rules) &&
         SameList(a.limits, b.limits);
}

bool Same(const SchedulerConfig& a, const SchedulerConfig& b) {
  return SameList(a.partitions, b.partitions);
}

auto Message(const std::string& substring) {
  return Field(&ConfigError::message, HasSubstr(substring));
}

auto AtLine(int line) { return Field(&ConfigError::location, Field(&SourceLocation::line, line)); }

std::vector<ConfigError> ErrorsOnly(const ConfigLoadResult& result) {
  std::vector<ConfigError> out;
  for (const ConfigError& e : result.errors) {
    if (!e.warning) out.push_back(e);
  }
  return out;
}

// ---- The corpus ------------------------------------------------------------------------

TEST(ConfigCorpusTest, ValidConfigsLoad) {
  std::vector<fs::path> files = CorpusFiles("valid");
  ASSERT_THAT(files, Not(IsEmpty()));
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    ConfigLoadResult result = LoadConfigFile(file.string());
    EXPECT_TRUE(result.config.has_value());
    CheckExpectations(file.filename().string(), ReadFile(file), result.errors);
    if (result.config) {
      EXPECT_EQ(result.config->source_name, file.string());
    }
  }
}

TEST(ConfigCorpusTest, InvalidConfigsReportEveryExpectedError) {
  std::vector<fs::path> files = CorpusFiles("invalid");
  ASSERT_THAT(files, Not(IsEmpty()));
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    std::string text = ReadFile(file);
    ASSERT_THAT(ParseExpectations(text), Not(IsEmpty())) << "a corpus file without expectations";
    ConfigLoadResult result = LoadConfigFile(file.string());
    EXPECT_FALSE(result.config.has_value());
    CheckExpectations(file.filename().string(), text, result.errors);
  }
}

TEST(ConfigCorpusTest, JsonRoundTripGivesTheSameConfig) {
  for (const fs::path& file : CorpusFiles("valid")) {
    SCOPED_TRACE(file.filename().string());
    ConfigLoadResult first = LoadConfigFile(file.string());
    ASSERT_TRUE(first.config.has_value());
    std::string json = ConfigToJson(*first.config);
    ConfigLoadResult second = LoadConfigText(json, "round-trip.json");
    ASSERT_TRUE(second.config.has_value()) << json;
    EXPECT_THAT(ErrorsOnly(second), IsEmpty());
    EXPECT_TRUE(Same(*first.config, *second.config)) << json;
    EXPECT_EQ(ConfigToJson(*second.config), json);  // stable
  }
}

// One pipeline validates and applies: whatever validates, the kernel must accept.
TEST(ConfigCorpusTest, ValidConfigsAreAppliedByTheKernel) {
  for (const fs::path& file : CorpusFiles("valid")) {
    SCOPED_TRACE(file.filename().string());
    ConfigLoadResult loaded = LoadConfigFile(file.string());
    ASSERT_TRUE(loaded.config.has_value());
    absl::StatusOr<std::unique_ptr<Kernel>> kernel = Kernel::Create(*loaded.config);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
  }
}

TEST(ConfigCorpusTest, SeedExamplesKeepTheirMeaning) {
  ConfigLoadResult result =
      LoadConfigFile((kConfigs / "valid/seed003-child-template.yaml").string());
  ASSERT_TRUE(result.config.has_value());
  const QueueConfig& root = result.config->partitions[0].queues[0];
  ASSERT_TRUE(root.child_template.has_value());
  EXPECT_EQ(root.child_template->max_applications, 10u);
  // vcore: 1000 cores in milli-cores; memory in bytes.
  EXPECT_EQ(root.child_template->resources.guaranteed,
            (QuantityMap{{"vcore", 1000000}, {"memory", 1000}}));
  EXPECT_EQ(root.queues[0].child_template->resources.max,
            (QuantityMap{{"vcore", 21000000}, {"memory", 610000}}));

  result = LoadConfigFile((kConfigs / "valid/seed003-namespaces-parent.yaml").string());
  ASSERT_TRUE(result.config.has_value());
  const QueueConfig& inserted = result.config->partitions[0].queues[0];
  EXPECT_EQ(inserted.name, "root");
  ASSERT_THAT(inserted.queues, SizeIs(2));
  EXPECT_EQ(inserted.queues[1].name, "namespaces");
  EXPECT_EQ(inserted.queues[1].queues[0].max_applications, 8u);
}

// ---- Quantities (§1.2) ---------------------------------------------------------------------

TEST(QuantityTest, SuffixesAndVcore) {
  struct Case {
    const char* name;
    const char* text;
    int64_t want;
  };
  for (const Case& c : std::vector<Case>{
           {"memory", "0", 0},
           {"memory", "123", 123},
           {"memory", " 7 ", 7},
           {"memory", "1k", 1000},
           {"memory", "2M", 2000000},
           {"memory", "3G", 3000000000},
           {"memory", "1T", 1000000000000},
           {"memory", "1P", 1000000000000000},
           {"memory", "9E", 9000000000000000000},
           {"memory", "1Ki", 1024},
           {"memory", "1Mi", 1 << 20},
           {"memory", "10 Gi", int64_t{10} << 30},
           {"memory", "1Ti", int64_t{1} << 40},
           {"memory", "1Pi", int64_t{1} << 50},
           {"memory", "7Ei", int64_t{7} << 60},
           {"memory", "9223372036854775807", INT64_MAX},
           {"vcore", "2", 2000},
           {"vcore", "500m", 500},
           {"vcore", "1k", 1000000},
           {"vcore", "1Ki", 1024000},
           {"vcore", "9223372036854775", 9223372036854775000},
           {"vcore", "9223372036854775807m", INT64_MAX},
       }) {
    std::string error;
    EXPECT_EQ(internal::ParseQuantity(c.name, c.text, &error), c.want)
        << c.name << " " << c.text << ": " << error;
  }
}

TEST(QuantityTest, Errors) {
  struct Case {
    const char* name;
    const char* text;
    const char* why;
  };
  for (const Case& c : std::vector<Case>{
           {"memory", "", "expected digits"},
           {"memory", "1.5", "expected digits"},
           {"memory", "-1", "expected digits"},
           {"memory", "+1", "expected digits"},
           {"memory", "Gi", "expected digits"},
           {"memory", "1i", "expected digits"},
           {"memory", "1Gb", "expected digits"},
           {"memory", "1K", "invalid suffix 'K'"},
           {"memory", "1ki", "invalid suffix 'ki'"},
           {"memory", "1mi", "invalid suffix 'mi'"},
           {"memory", "1m", "invalid suffix 'm'"},
           {"gpu", "500m", "milli units are only allowed for vcore"},
           {"memory", "9223372036854775808", "overflow"},
           {"memory", "99999999999999999999999", "overflow"},
           {"memory", "8Ei", "overflow"},
           {"memory", "10E", "overflow"},
           {"vcore", "9223372036854776", "overflow"},
           {"vcore", "9223372036854775808m", "overflow"},
           {"vcore", "8Ei", "overflow"},
       }) {
    std::string error;
    EXPECT_EQ(internal::ParseQuantity(c.name, c.text, &error), std::nullopt)
        << c.name << " " << c.text;
    EXPECT_THAT(error, HasSubstr(c.why)) << c.name << " " << c.text;
  }
}

// ---- Texts and encodings -------------------------------------------------------------------

TEST(ConfigLoaderTest, EmptyTextGivesTheBuiltInDefault) {
  for (const char* text : {"", "  \n\t\n", "# only a comment\n", "---\n", "---\n...\n", "~\n"}) {
    ConfigLoadResult result = LoadConfigText(text, "empty.yaml");
    ASSERT_TRUE(result.config.has_value()) << "'" << text << "'";
    EXPECT_THAT(result.errors, IsEmpty());
    SchedulerConfig expected = DefaultSchedulerConfig();
    ValidateConfig(expected);  // the root becomes an explicit parent
    EXPECT_TRUE(Same(*result.config, expected));
    EXPECT_EQ(result.config->source_name, "empty.yaml");
  }
  // An empty mapping is not empty text: no partitions at all.
  ConfigLoadResult empty_map = LoadConfigText("{}", "x");
  ASSERT_TRUE(empty_map.config.has_value());
  EXPECT_THAT(empty_map.config->partitions, IsEmpty());
}

constexpr char kSmallConfig[] =
    "partitions:\n"
    "  - name: default\n"
    "    queues:\n"
    "      - name: a\n"
    "        maxapplications: 5\n"
    "        resources: {max: {memory: 1Gi, vcore: 2}}\n";

TEST(ConfigLoaderTest, CrlfLineEndsAndAByteOrderMarkLoadTheSame) {
  ConfigLoadResult plain = LoadConfigText(kSmallConfig, "lf.yaml");
  ASSERT_TRUE(plain.config.has_value());
  std::string crlf;
  for (char c : std::string(kSmallConfig)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  for (const std::string& text :
       {crlf, "\xEF\xBB\xBF" + std::string(kSmallConfig), "\xEF\xBB\xBF" + crlf}) {
    ConfigLoadResult other = LoadConfigText(text, "other.yaml");
    ASSERT_TRUE(other.config.has_value());
    EXPECT_TRUE(Same(*plain.config, *other.config));
  }
  // Positions stay right: an error on line 5.
  std::string bad =
      "\xEF\xBB\xBFpartitions:\r\n  - name: default\r\n    queues:\r\n"
      "      - name: a\r\n        maxapps: 5\r\n";
  EXPECT_THAT(LoadConfigText(bad, "x").errors,
              ElementsAre(AllOf(Message("unknown key 'maxapps'"), AtLine(5),
                                Field(&ConfigError::location, Field(&SourceLocation::column, 9)))));
}

TEST(ConfigLoaderTest, JsonDocumentsLoad) {
  ConfigLoadResult yaml = LoadConfigText(kSmallConfig, "x.yaml");
  ConfigLoadResult json = LoadConfigText(
      R"({"partitions": [{"name": "default", "queues": [{"name": "a", "maxapplications": 5,
         "resources": {"max": {"memory": "1Gi", "vcore": 2}}}]}]})",
      "x.json");
  ASSERT_TRUE(yaml.config.has_value());
  ASSERT_TRUE(json.config.has_value());
  EXPECT_TRUE(Same(*yaml.config, *json.config));
}

TEST(ConfigLoaderTest, ConfigJsonIsStableAndComplete) {
  SchedulerConfig config = DefaultSchedulerConfig();
  EXPECT_EQ(ConfigToJson(config),
            R"({
  "partitions": [
    {
      "name": "default",
      "queues": [
        {"name": "root", "parent": false, "maxapplications": 0, "properties": {}, "adminacl": "", "submitacl": "*", "resources": {}, "limits": [], "queues": []}
      ],
      "placementrules": [
        {"name": "tag", "create": true, "value": "namespace", "filter": {"type": "", "users": [], "groups": []}}
      ],
      "limits": [],
      "nodesortpolicy": {"type": "", "resourceweights": {}}
    }
  ]
}
)");
}

TEST(ConfigLoaderTest, MoreThanOneDocumentIsAWarning) {
  ConfigLoadResult result = LoadConfigText("partitions: []\n---\npartitions: [1]\n", "x");
  ASSERT_TRUE(result.config.has_value());
  EXPECT_THAT(result.errors, ElementsAre(AllOf(Message("more than one YAML document"),
                                               Field(&ConfigError::warning, true))));
}

TEST(ConfigLoaderTest, DecodeErrorsSuppressFollowOnValidation) {
  // maxapplications cannot be decoded; validating the rest would wrongly report the child as
  // "unlimited under a limited parent". Unknown keys do not stop validation.
  ConfigLoadResult result = LoadConfigText(
      "partitions:\n  - queues:\n      - name: a\n        maxapplications: 10\n"
      "        queues:\n          - name: b\n            maxapplications: ten\n",
      "x");
  EXPECT_THAT(result.errors, ElementsAre(Message("maxapplications must be an unsigned integer")));
  result = LoadConfigText(
      "partitions:\n  - queues:\n      - name: a\n        maxapplications: 10\n"
      "        queues:\n          - name: b\n            colour: blue\n",
      "x");
  EXPECT_THAT(result.errors,
              ElementsAre(AllOf(Message("maxapplications is unlimited (0)"), AtLine(6)),
                          AllOf(Message("unknown key 'colour'"), AtLine(7))));
}

TEST(ConfigLoaderTest, YamlIntegersAndBooleansFollowYaml11) {
  ConfigLoadResult result = LoadConfigText(
      "partitions:\n  - preemption: {enabled: yes}\n    queues:\n"
      "      - {name: a, parent: On, maxapplications: 0x10}\n"
      "      - {name: b, maxapplications: 010}\n"
      "      - {name: c, maxapplications: 1_000}\n",
      "x");
  ASSERT_TRUE(result.config.has_value());
  const PartitionConfig& p = result.config->partitions[0];
  EXPECT_EQ(p.preemption_enabled, true);
  const QueueConfig& root = p.queues[0];
  EXPECT_TRUE(root.queues[0].parent);
  EXPECT_EQ(root.queues[0].max_applications, 16u);
  EXPECT_EQ(root.queues[1].max_applications, 8u);  // yaml.v2: leading 0 is octal
  EXPECT_EQ(root.queues[2].max_applications, 1000u);
}

TEST(ConfigLoaderTest, MissingAndUnreadableFiles) {
  ConfigLoadResult missing = LoadConfigFile("/nonexistent/queues.yaml");
  EXPECT_FALSE(missing.config.has_value());
  EXPECT_THAT(missing.errors, ElementsAre(Message("cannot read file: No such file or directory")));
  ConfigLoadResult directory = LoadConfigFile(kConfigs.string());
  EXPECT_FALSE(directory.config.has_value());
  EXPECT_THAT(directory.errors, ElementsAre(Message("is a directory, not a file")));
  ConfigLoadResult device = LoadConfigFile("/dev/zero");
  EXPECT_FALSE(device.config.has_value());
  EXPECT_THAT(device.errors, ElementsAre(Message("is a character device, not a file")));
}

TEST(ConfigLoaderTest, ErrorsPrintAsFileLineColumn) {
  ConfigLoadResult result = LoadConfigText(
      "partitions:\n  - name: default\n    queues:\n      - name: a\n        maxapplications: 10\n"
      "        queues:\n          - name: b\n            maxapplications: 20\n",
      "queues.yaml");
  ASSERT_THAT(result.errors, SizeIs(1));
  EXPECT_EQ(result.errors[0].ToString("queues.yaml"),
            "queues.yaml:8:13: partition default, queue root.a.b: maxapplications 20 exceeds the "
            "parent's 10 (root.a): a child may allow at most as many running applications as its "
            "parent");
  EXPECT_EQ(result.errors[0].field, "maxapplications");
}

// The six lines of a queues.yaml up to the children of a root anyone may submit to; the large
// configs below append generated children (list items indented by ten spaces).
constexpr char kOpenRootHead[] =
    "partitions:\n  - name: default\n    queues:\n      - name: root\n"
    "        submitacl: '*'\n        queues:\n";

// A 10,000-queue config (100 parents x 100 leaves) loads and validates. Timing is measured
// outside the test suite (see adapters/README.md); this only checks the result.
TEST(ConfigLoaderTest, TenThousandQueues) {
  std::string text = kOpenRootHead;
  for (int i = 0; i < 100; ++i) {
    text += "          - name: parent-" + std::to_string(i) +
            "\n            maxapplications: 1000\n            resources:\n"
            "              guaranteed: {memory: 100Gi, vcore: 100}\n"
            "              max: {memory: 1000Gi, vcore: 1000}\n            queues:\n";
    for (int j = 0; j < 100; ++j) {
      text += "              - name: leaf-" + std::to_string(j) +
              "\n                maxapplications: 10\n                submitacl: \"user" +
              std::to_string(j) + " group" + std::to_string(i) +
              "\"\n                resources:\n"
              "                  guaranteed: {memory: 1Gi, vcore: 1}\n"
              "                  max: {memory: 10Gi, vcore: 10}\n";
    }
  }
  ConfigLoadResult result = LoadConfigText(text, "big.yaml");
  ASSERT_TRUE(result.config.has_value());
  EXPECT_THAT(result.errors, IsEmpty());
  EXPECT_THAT(result.config->partitions[0].queues[0].queues, SizeIs(100));
  EXPECT_THAT(result.config->partitions[0].queues[0].queues[99].queues, SizeIs(100));
}

// The deepest hierarchy allowed (kMaxQueueDepth levels, the inserted root included) loads; one
// level more is refused with the limit named at the queue that passes it.
TEST(ConfigLoaderTest, DeepestLegalHierarchyLoads) {
  auto chain = [](int levels) {
    std::string text = "partitions:\n  - queues:\n";
    std::string indent = "    ";
    for (int i = 0; i < levels; ++i) {
      text += indent + "- name: q" + std::to_string(i) + "\n" + indent + "  queues:\n";
      indent += "    ";
    }
    return text;
  };
  ConfigLoadResult result = LoadConfigText(chain(kMaxQueueDepth - 1), "deep.yaml");
  EXPECT_TRUE(result.config.has_value());
  EXPECT_THAT(result.errors, IsEmpty());
  result = LoadConfigText(chain(kMaxQueueDepth), "deeper.yaml");
  EXPECT_FALSE(result.config.has_value());
  EXPECT_THAT(result.errors, ElementsAre(Message("deeper than 64 levels")));
}

// ---- Hostile input ---------------------------------------------------------------------

std::vector<ConfigError> Refused(const std::string& text) {
  ConfigLoadResult result = LoadConfigText(text, "hostile.yaml");
  EXPECT_FALSE(result.config.has_value());
  EXPECT_THAT(result.errors, Not(IsEmpty()));
  return result.errors;
}

TEST(HostileInputTest, AliasBomb) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    text += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) text += std::string(i ? ", *" : "*") + static_cast<char>(c - 1);
    text += "]\n";
  }
  text += "partitions: []\n";
  EXPECT_THAT(Refused(text), ElementsAre(Message("aliases expand the document by more than "
                                                 "1000000 nodes")));
  EXPECT_THAT(std::string(internal::CheckYamlText(text).message()),
              HasSubstr("aliases expand the document"));
}

TEST(HostileInputTest, TooManyAliases) {
  std::string text = "a: &a x\nb: [";
  for (int i = 0; i <= 10000; ++i) text += i ? ", *a" : "*a";
  text += "]\n";
  EXPECT_THAT(Refused(text), ElementsAre(AllOf(Message("more than 10000 aliases"), AtLine(2))));
}

TEST(HostileInputTest, SelfReferencingAnchors) {
  for (const char* text :
       {"partitions: &p [*p]\n", "partitions: &p\n  - name: x\n    queues: *p\n",
        "partitions:\n  - &q {name: default, queues: [*q]}\n", "&top {partitions: [*top]}\n"}) {
    EXPECT_THAT(Refused(text), ElementsAre(Message("self-referencing"))) << text;
    EXPECT_THAT(std::string(internal::CheckYamlText(text).message()),
                HasSubstr("self-referencing"));
  }
  // Aliases to complete nodes are fine.
  ConfigLoadResult ok = LoadConfigText(
      "x: &r {max: {memory: 10}}\npartitions:\n  - queues:\n      - {name: a, resources: *r}\n",
      "x");
  EXPECT_THAT(ok.errors, ElementsAre(Message("unknown key 'x'")));
}

TEST(HostileInputTest, DeepNesting) {
  const int kDepth = 100000;
  std::string flow = "partitions: " + std::string(kDepth, '[') + std::string(kDepth, ']');
  std::string maps;
  for (int i = 0; i < kDepth; ++i) maps += "{a: ";
  maps += "x" + std::string(kDepth, '}');
  std::string dashes;
  for (int i = 0; i < kDepth; ++i) dashes += "- ";
  dashes += "x\n";
  std::string indented;
  for (int i = 0; i < 2000; ++i) indented += std::string(static_cast<size_t>(i), ' ') + "a:\n";
  for (const std::string& text : {flow, maps, dashes, indented}) {
    EXPECT_THAT(Refused(text), ElementsAre(Message("nesting depth exceeds the limit of 400")));
    EXPECT_THAT(std::string(internal::CheckYamlText(text).message()),
                HasSubstr("nesting depth exceeds the limit of 400"));
  }
}

TEST(HostileInputTest, BracketsInsideStringsDoNotCount) {
  std::string deep(5000, '[');
  std::string text = "partitions:\n  - name: \"" + deep + "\"\n    queues:\n      - name: a\n" +
                     "        properties:\n          p: '" + deep +
                     "'\n          q: |\n            " + deep + "\n          r: x" + deep + "\n";
  ConfigLoadResult result = LoadConfigText(text, "x");
  EXPECT_TRUE(result.config.has_value());
  EXPECT_THAT(ErrorsOnly(result), IsEmpty());  // p, q and r are unknown properties: warnings
}

// A real queues.yaml of 3,000 queues (about 285 KiB) loads on its own and inside a ConfigMap,
// whose data."queues.yaml" is one scalar: the 64 KiB bound on a scalar gives way to Kubernetes'
// 1 MiB bound on a ConfigMap there, and only there.
TEST(HostileInputTest, LargeQueuesYamlLoadsInsideAConfigMap) {
  std::string queues = kOpenRootHead;
  for (int i = 0; i < 3000; ++i) {
    queues += "          - name: tenant-" + std::to_string(i) +
              "\n            resources: {guaranteed: {memory: 1Gi, vcore: 1}, max: {memory: 8Gi, "
              "vcore: 4}}\n";
  }
  ASSERT_GT(queues.size(), size_t{256} << 10);
  ConfigLoadResult alone = LoadConfigText(queues, "queues.yaml");
  ASSERT_TRUE(alone.config.has_value());
  auto config_map = [](const std::string& inner) {
    std::string out =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yunikorn-configs\ndata:\n"
        "  queues.yaml: |\n";
    for (size_t start = 0; start < inner.size();) {
      size_t end = inner.find('\n', start);
      out += "    " + inner.substr(start, end - start) + "\n";
      start = end + 1;
    }
    return out;
  };
  ConfigLoadResult wrapped = LoadConfigText(config_map(queues), "configmap.yaml");
  ASSERT_TRUE(wrapped.config.has_value())
      << (wrapped.errors.empty() ? std::string() : wrapped.errors[0].ToString("configmap.yaml"));
  EXPECT_EQ(ConfigToJson(*wrapped.config), ConfigToJson(*alone.config));
  // An error inside it still names its line in the outer file.
  std::string broken = queues;
  broken.replace(broken.find("tenant-2999"), 11, "tenant 2999");
  ConfigLoadResult located = LoadConfigText(config_map(broken), "configmap.yaml");
  ASSERT_FALSE(located.config.has_value());
  EXPECT_THAT(ErrorsOnly(located), Contains(AtLine(6 + 7 + 2 * 2999)));
  // The same long scalar outside a ConfigMap, and a ConfigMap over 1 MiB, stay refused.
  EXPECT_THAT(Refused("partitions:\n  - name: \"" + std::string(70000, 'x') + "\"\n"),
              ElementsAre(Message("a quoted scalar of more than 65536 bytes")));
  std::string huge = queues;
  while (huge.size() <= (size_t{1} << 20)) huge += "# padding " + std::string(1000, 'p') + "\n";
  // Refused for Kubernetes' 1 MiB bound on a ConfigMap, not for the 64 KiB one on a scalar.
  EXPECT_THAT(Refused(config_map(huge)),
              ElementsAre(Message("a ConfigMap whose data.\"queues.yaml\" is more than 1048576 "
                                  "bytes (1 MiB, Kubernetes' limit on a ConfigMap)")));
}

TEST(HostileInputTest, NulBytes) {
  EXPECT_THAT(Refused(std::string("partitions:\n  - name: def\0ault\n", 30)),
              ElementsAre(AllOf(Message("NUL byte"), AtLine(2))));
}

TEST(HostileInputTest, InvalidUtf8) {
  for (const char* bad :
       {"\xC3\x28", "\x80", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82"}) {
    EXPECT_THAT(Refused(std::string("partitions:\n  - name: x") + bad + "\n"),
                ElementsAre(AllOf(Message("invalid UTF-8"), AtLine(2))));
  }
  // Valid multi-byte text is fine (and then the queue name is just invalid).
  EXPECT_THAT(LoadConfigText("partitions:\n  - queues: [{name: \xC3\xA9t\xC3\xA9}]\n", "x").errors,
              ElementsAre(Message("invalid child name")));
}

TEST(HostileInputTest, ControlCharacters) {
  EXPECT_THAT(Refused("partitions: [\x01]\n"), ElementsAre(Message("control character 0x01")));
}

TEST(HostileInputTest, BinaryGarbage) {
  std::mt19937 random(20240611);
  for (int round = 0; round < 200; ++round) {
    std::string text(1 + random() % 2048, '\0');
    for (char& c : text) c = static_cast<char>(random() % 256);
    ConfigLoadResult result = LoadConfigText(text, "garbage.bin");
    EXPECT_FALSE(result.config.has_value());
    EXPECT_THAT(result.errors, Not(IsEmpty()));
  }
  // Printable garbage passes the text checks and must still fail cleanly.
  for (int round = 0; round < 300; ++round) {
    std::string text(1 + random() % 512, ' ');
    static constexpr char kAlphabet[] = "abc:-[]{}&*!|>'\"#,? \n\t%@`0123456789\\";
    for (char& c : text) c = kAlphabet[random() % (sizeof(kAlphabet) - 1)];
    ConfigLoadResult result = LoadConfigText(text, "garbage.txt");
    EXPECT_TRUE(result.config.has_value() || !result.errors.empty());
  }
}

TEST(HostileInputTest, TopLevelJsonArrayAndScalars) {
  EXPECT_THAT(Refused("[{\"partitions\": []}]"),
              ElementsAre(Message("the config must be a mapping with a `partitions` list, got a "
                                  "list")));
  EXPECT_THAT(Refused("hello"), ElementsAre(Message("got a scalar")));
  EXPECT_THAT(Refused("42\n"), ElementsAre(Message("got a scalar")));
}

TEST(HostileInputTest, HugeScalars) {
  std::string name(1 << 20, 'q');
  std::string head = "partitions:\n  - name: default\n    queues:\n      - name: ";
  EXPECT_THAT(Refused(head + name + "\n"),
              ElementsAre(AllOf(Message("a scalar of more than 65536 bytes"), AtLine(4))));
  EXPECT_THAT(Refused(head + "\"" + name + "\"\n"),
              ElementsAre(AllOf(Message("a quoted scalar of more than 65536 bytes"), AtLine(4))));
  EXPECT_THAT(Refused(head + "'" + name + "'\n"),
              ElementsAre(Message("a quoted scalar of more than 65536 bytes")));
  std::string block = head + "a\n        properties:\n          p: |\n";
  for (int i = 0; i < 1000; ++i) block += "            " + std::string(100, 'b') + "\n";
  EXPECT_THAT(Refused(block), ElementsAre(Message("a scalar of more than 65536 bytes")));
  // 64 KiB is the limit, queue names are limited to 64 characters by validation.
  EXPECT_THAT(LoadConfigText(head + std::string(65536, 'q') + "\n", "x").errors,
              ElementsAre(Message("invalid child name")));
}

TEST(HostileInputTest, HugeIntegers) {
  EXPECT_THAT(Refused("partitions:\n  - queues:\n      - name: a\n"
                      "        maxapplications: 99999999999999999999999999999999\n"),
              ElementsAre(Message("too large")));
  EXPECT_THAT(Refused("partitions:\n  - queues:\n      - name: a\n"
                      "        resources: {max: {memory: 1" +
                      std::string(5000, '0') + "}}\n"),
              ElementsAre(Message("overflow")));
  EXPECT_THAT(Refused("partitions:\n  - nodesortpolicy: {resourceweights: {vcore: 1e999}}\n"
                      "    queues: []\n"),
              ElementsAre(Message("must be a finite number")));
}

TEST(HostileInputTest, TotalSize) {
  std::string text(internal::kMaxYamlBytes + 1, ' ');
  EXPECT_THAT(Refused(text), ElementsAre(Message("the limit is 67108864 bytes (64 MiB)")));
}

// ---- The internal API used by the scenario loader ------------------------------------------

TEST(YamlDecodeTest, CheckYamlTextNamesThePosition) {
  EXPECT_TRUE(internal::CheckYamlText(kSmallConfig).ok());
  absl::Status status = internal::CheckYamlText("a: 1\nb: [\x01]\n");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), StartsWith("2:5: control character"));
}

TEST(YamlDecodeTest, DecodeConfigNodeFromYamlCpp) {
  YAML::Node node = YAML::Load(kSmallConfig);
  SchedulerConfig config;
  std::vector<ConfigError> errors;
  internal::DecodeConfigNode(node, &config, &errors);
  EXPECT_THAT(errors, IsEmpty());
  ASSERT_THAT(config.partitions, SizeIs(1));
  EXPECT_EQ(config.partitions[0].queues[0].max_applications, 5u);
  EXPECT_EQ(config.partitions[0].queues[0].field_locations[1].first, "maxapplications");
  EXPECT_EQ(config.partitions[0].queues[0].field_locations[1].second.line, 5);
}

TEST(YamlDecodeTest, DecodeConfigNodeRefusesCyclicNodes) {
  // yaml-cpp builds a cyclic node for a self-referencing anchor; decoding must stop.
  YAML::Node node = YAML::Load("partitions: &p [{queues: *p}]\n");
  SchedulerConfig config;
  std::vector<ConfigError> errors;
  internal::DecodeConfigNode(node, &config, &errors);
  EXPECT_THAT(errors, ElementsAre(Message("nesting depth exceeds the limit")));
}

}  // namespace
}  // namespace adapters
}  // namespace allocore
