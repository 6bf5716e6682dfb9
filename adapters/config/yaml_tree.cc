// adapters/config/yaml_tree.cc — the compact YAML tree, its builders, and the lexical pre-check.
#include "yaml_tree.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "yaml-cpp/depthguard.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml_tree_builder.h"

namespace allocore::adapters::internal {
namespace {

std::string Hex(unsigned char c) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  return {'0', 'x', kDigits[c >> 4], kDigits[c & 0xF]};
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid (overlong forms,
// surrogates and code points above U+10FFFF are invalid).
size_t Utf8Length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char lead = byte(i);
  size_t len = lead < 0x80           ? 1
               : (lead >> 5) == 0x6  ? 2
               : (lead >> 4) == 0xE  ? 3
               : (lead >> 3) == 0x1E ? 4
                                     : 0;
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  if (len == 2 && lead < 0xC2) return 0;
  if (len == 3 && lead == 0xE0 && byte(i + 1) < 0xA0) return 0;
  if (len == 3 && lead == 0xED && byte(i + 1) >= 0xA0) return 0;
  if (len == 4 && lead == 0xF0 && byte(i + 1) < 0x90) return 0;
  if (len == 4 && (lead > 0xF4 || (lead == 0xF4 && byte(i + 1) >= 0x90))) return 0;
  return len;
}

// ---- Lexical pre-check ---------------------------------------------------------------------
//
// A single pass over the text. Depth is the number of open block levels (from indentation and
// "- " entries) plus open flow brackets; it over-estimates rather than under-estimates, except
// that quoted and block scalars are skipped exactly as YAML delimits them, so brackets inside
// strings do not count.
class TextScanner {
 public:
  TextScanner(std::string_view text, size_t max_scalar_bytes)
      : t_(text), max_scalar_bytes_(max_scalar_bytes) {}

  std::optional<YamlTextIssue> Run() {
    if (t_.size() > kMaxYamlBytes) {
      return YamlTextIssue{0, 0,
                           absl::StrCat("the text is ", t_.size(), " bytes; the limit is ",
                                        kMaxYamlBytes, " bytes (64 MiB)")};
    }
    if (auto issue = CheckCharacters()) return issue;
    size_t pos = t_.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    int line = 1;
    while (pos <= t_.size() && !issue_) {
      size_t end = t_.find('\n', pos);
      if (end == std::string_view::npos) end = t_.size();
      size_t content_end = end;
      if (content_end > pos && t_[content_end - 1] == '\r') --content_end;
      Line(line, pos, content_end);
      if (end == t_.size()) break;
      pos = end + 1;
      ++line;
    }
    if (issue_) return issue_;
    return std::nullopt;
  }

  int aliases() const { return aliases_; }

 private:
  // NUL, other control characters and invalid UTF-8, with their position.
  std::optional<YamlTextIssue> CheckCharacters() const {
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < t_.size();) {
      auto c = static_cast<unsigned char>(t_[i]);
      if (c >= 0x20 && c < 0x7F) {
        ++i;
        continue;
      }
      int column = static_cast<int>(i - line_start) + 1;
      if (c == '\n') {
        ++line;
        line_start = ++i;
        continue;
      }
      if (c == '\t' || c == '\r') {
        ++i;
        continue;
      }
      if (c == 0) {
        return YamlTextIssue{line, column,
                             "NUL byte: a YAML text may not contain NUL bytes (is it binary?)"};
      }
      if (c < 0x20 || c == 0x7F) {
        return YamlTextIssue{line, column,
                             absl::StrCat("control character ", Hex(c),
                                          ": a YAML text may only contain printable characters, "
                                          "tabs and line breaks")};
      }
      size_t len = Utf8Length(t_, i);
      if (len == 0) {
        return YamlTextIssue{
            line, column,
            absl::StrCat("invalid UTF-8 (byte ", Hex(c), "): a YAML text must be UTF-8 encoded")};
      }
      i += len;
    }
    return std::nullopt;
  }

  void Fail(int line, size_t pos, std::string message) {
    if (issue_) return;
    issue_ = YamlTextIssue{line, static_cast<int>(pos - line_start_) + 1, std::move(message)};
  }

  void CheckDepth(int line, size_t pos) {
    size_t depth = levels_.size() + flow_depth_;
    if (depth > static_cast<size_t>(kMaxYamlDepth)) {
      Fail(line, pos,
           absl::StrCat("nesting depth exceeds the limit of ", kMaxYamlDepth,
                        " levels (block indentation plus [ and { brackets)"));
    }
  }

  void CheckScalar(int line, size_t pos, size_t length) {
    if (length > max_scalar_bytes_ && !issue_) {
      Fail(line, pos,
           absl::StrCat("a scalar of more than ", max_scalar_bytes_,
                        " bytes: the limit for one value is ", max_scalar_bytes_, " bytes (",
                        max_scalar_bytes_ >> 10, " KiB); queue names are at most 64 characters"));
      issue_->scalar_too_large = true;
    }
  }

  static bool IsBlank(char c) { return c == ' ' || c == '\t'; }
  static bool IsFlowIndicator(char c) {
    return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
  }

  // A "- " (or "-" at the end of the line) sequence entry indicator at pos.
  bool IsDash(size_t pos, size_t end) const {
    return pos < end && t_[pos] == '-' && (pos + 1 == end || IsBlank(t_[pos + 1]));
  }

  void PushLevel(int line, size_t pos, int64_t level) {
    while (!levels_.empty() && levels_.back() > level) levels_.pop_back();
    if (levels_.empty() || levels_.back() < level) levels_.push_back(level);
    CheckDepth(line, pos);
  }

  void Line(int line, size_t begin, size_t end) {
    line_start_ = begin;
    size_t pos = begin;
    if (quote_ != 0) {
      pos = ScanQuoted(line, begin, end);
      if (quote_ != 0) return;  // the scalar continues on the next line
      Tokens(line, pos, end);
      return;
    }
    size_t indent = 0;
    while (begin + indent < end && t_[begin + indent] == ' ') ++indent;
    size_t first = begin + indent;
    while (first < end && IsBlank(t_[first])) ++first;
    bool blank = first == end;
    if (block_scalar_) {
      bool document_marker = indent == 0 && end - begin >= 3 &&
                             (t_.substr(begin, 3) == "---" || t_.substr(begin, 3) == "...") &&
                             (end - begin == 3 || IsBlank(t_[begin + 3]));
      if (!document_marker &&
          (blank || (block_indent_ >= 0 && static_cast<int64_t>(indent) >= block_indent_) ||
           (block_indent_ < 0 && static_cast<int64_t>(indent) > block_parent_))) {
        if (!blank && block_indent_ < 0) block_indent_ = static_cast<int64_t>(indent);
        block_length_ += end - begin + 1;
        CheckScalar(line, begin, block_length_);
        return;
      }
      block_scalar_ = false;
    }
    if (blank || t_[first] == '#') return;
    pos = first;
    // Inside a flow collection the line's position says nothing about the node holding a
    // later block scalar: a huge parent column makes such a scalar's content be scanned as
    // structure (over-estimating depth rather than hiding brackets).
    parent_column_ = kUnknownColumn;
    dash_column_ = -1;
    if (flow_depth_ == 0) {
      if (indent == 0 && (t_.substr(pos, 3) == "---" || t_.substr(pos, 3) == "...") &&
          (pos + 3 == end || IsBlank(t_[pos + 3]))) {
        levels_.clear();
        pos += 3;
        while (pos < end && IsBlank(t_[pos])) ++pos;
        parent_column_ = -1;
        dash_column_ = -1;
        Tokens(line, pos, end);
        return;
      }
      if (indent == 0 && t_[pos] == '%') return;  // directive
      int64_t column = static_cast<int64_t>(pos - begin);
      bool dash = IsDash(pos, end);
      PushLevel(line, pos, dash ? 2 * column + 1 : 2 * column);
      parent_column_ = column;
      dash_column_ = -1;
      while (IsDash(pos, end) && !issue_) {
        dash_column_ = static_cast<int64_t>(pos - begin);
        ++pos;
        while (pos < end && IsBlank(t_[pos])) ++pos;
        if (pos == end || t_[pos] == '#') return;
        int64_t next = static_cast<int64_t>(pos - begin);
        levels_.push_back(IsDash(pos, end) ? 2 * next + 1 : 2 * next);
        CheckDepth(line, pos);
        parent_column_ = next;
      }
    }
    Tokens(line, pos, end);
  }

  // Scans tokens from pos to the end of the line.
  void Tokens(int line, size_t pos, size_t end) {
    bool token_start = true;
    bool after_dash =
        dash_column_ >= 0 && static_cast<int64_t>(pos - line_start_) == parent_column_;
    while (pos < end && !issue_) {
      char c = t_[pos];
      if (IsBlank(c)) {
        ++pos;
        token_start = true;
        continue;
      }
      if (c == '#' && token_start) return;  // comment
      if (flow_depth_ > 0 && (c == ']' || c == '}')) {
        --flow_depth_;
        ++pos;
        token_start = true;
        continue;
      }
      if (flow_depth_ > 0 && c == ',') {
        ++pos;
        token_start = true;
        continue;
      }
      if (c == ':' && (flow_depth_ > 0 || pos + 1 == end || IsBlank(t_[pos + 1]))) {
        ++pos;
        token_start = true;
        after_dash = false;
        continue;
      }
      // In flow context brackets are always indicators; in block context only at a token start.
      if (token_start || flow_depth_ > 0) {
        if (c == '[' || c == '{') {
          ++flow_depth_;
          CheckDepth(line, pos);
          ++pos;
          token_start = true;
          continue;
        }
      }
      if (token_start) {
        if (c == '"' || c == '\'') {
          quote_ = c;
          quote_length_ = 0;
          quote_line_ = line;
          quote_column_ = static_cast<int>(pos - line_start_) + 1;
          pos = ScanQuoted(line, pos + 1, end);
          if (quote_ != 0) return;
          token_start = false;
          continue;
        }
        if (c == '*' || c == '&' || c == '!') {
          if (c == '*' && ++aliases_ > kMaxYamlAliases) {
            Fail(line, pos,
                 absl::StrCat("more than ", kMaxYamlAliases,
                              " aliases: the limit protects against alias bombs"));
            return;
          }
          ++pos;
          while (pos < end && !IsBlank(t_[pos]) && !(flow_depth_ > 0 && IsFlowIndicator(t_[pos]))) {
            ++pos;
          }
          token_start = false;
          continue;
        }
        if ((c == '|' || c == '>') && flow_depth_ == 0) {
          block_scalar_ = true;
          block_indent_ = -1;
          block_length_ = 0;
          // Content must be indented more than the node holding the scalar: the dash of a
          // sequence entry ("- |"), else the key that starts the line ("key: |").
          block_parent_ = after_dash ? dash_column_ : parent_column_;
          return;  // the rest of the line is the block header
        }
        if ((c == '-' || c == '?') && (pos + 1 == end || IsBlank(t_[pos + 1]))) {
          ++pos;
          continue;
        }
      }
      // A plain scalar up to ": ", " #", a flow indicator (in flow context) or the line end.
      size_t start = pos;
      while (pos < end) {
        char d = t_[pos];
        if (d == ':' && (pos + 1 == end || IsBlank(t_[pos + 1]) ||
                         (flow_depth_ > 0 && IsFlowIndicator(t_[pos + 1])))) {
          break;
        }
        if (d == '#' && pos > start && IsBlank(t_[pos - 1])) break;
        if (flow_depth_ > 0 && IsFlowIndicator(d)) break;
        ++pos;
      }
      if (pos == start) ++pos;  // always make progress
      CheckScalar(line, start, pos - start);
      token_start = false;
      after_dash = false;
    }
  }

  // Scans a quoted scalar's content from pos; clears quote_ when the closing quote is found and
  // returns the position after it.
  size_t ScanQuoted(int line, size_t pos, size_t end) {
    size_t start = pos;
    while (pos < end) {
      char c = t_[pos];
      if (quote_ == '"' && c == '\\') {
        pos += 2;
        continue;
      }
      if (c == quote_) {
        if (quote_ == '\'' && pos + 1 < end && t_[pos + 1] == '\'') {
          pos += 2;
          continue;
        }
        quote_length_ += pos - start;
        quote_ = 0;
        CheckQuoted(line);
        return pos + 1;
      }
      ++pos;
    }
    quote_length_ += std::min(pos, end) - start + 1;
    CheckQuoted(line);
    return end;
  }

  void CheckQuoted(int line) {
    if (quote_length_ > max_scalar_bytes_ && !issue_) {
      (void)line;
      issue_ = YamlTextIssue{
          quote_line_, quote_column_,
          absl::StrCat("a quoted scalar of more than ", max_scalar_bytes_,
                       " bytes: the limit for one value is ", max_scalar_bytes_, " bytes (",
                       max_scalar_bytes_ >> 10, " KiB); queue names are at most 64 characters")};
      issue_->scalar_too_large = true;
    }
  }

  static constexpr int64_t kUnknownColumn = INT64_MAX / 4;

  std::string_view t_;
  size_t line_start_ = 0;
  std::vector<int64_t> levels_;  // open block levels: 2*column, 2*column+1 for "- " entries
  size_t flow_depth_ = 0;
  int64_t parent_column_ = -1;  // column of the first node on the current line
  int64_t dash_column_ = -1;    // column of the last "- " on the current line, -1 if none
  char quote_ = 0;              // inside a quoted scalar spanning lines
  size_t quote_length_ = 0;
  int quote_line_ = 0;
  int quote_column_ = 0;
  bool block_scalar_ = false;  // inside a | or > block scalar
  int64_t block_parent_ = -1;
  int64_t block_indent_ = -1;
  size_t block_length_ = 0;
  size_t max_scalar_bytes_;
  int aliases_ = 0;
  std::optional<YamlTextIssue> issue_;
};

}  // namespace

std::optional<YamlTextIssue> ScanYamlText(std::string_view text, int* alias_count,
                                          size_t max_scalar_bytes) {
  TextScanner scanner(text, max_scalar_bytes);
  std::optional<YamlTextIssue> issue = scanner.Run();
  if (alias_count != nullptr) *alias_count = scanner.aliases();
  return issue;
}

// ---- The tree ------------------------------------------------------------------------------

std::string_view YamlTree::tag(Id id) const {
  const Node& n = nodes_[id];
  return n.tag == 0 ? std::string_view() : std::string_view(tags_[n.tag - 1]);
}

std::string_view YamlTree::scalar(Id id) const {
  const Node& n = nodes_[id];
  if (n.kind != Kind::kScalar) return {};
  return std::string_view(values_).substr(n.begin, n.size);
}

std::span<const YamlTree::Id> YamlTree::children(Id id) const {
  const Node& n = nodes_[id];
  if (n.kind != Kind::kSequence && n.kind != Kind::kMapping) return {};
  return std::span<const Id>(children_).subspan(n.begin, n.size);
}

namespace {

// The first document of `text` into `out`. With `first_only` the parser is not asked for
// another document (YAML::Load's behaviour); otherwise it starts the next one, which reports
// `more_documents` but also reads that document's directives.
std::optional<YamlTextIssue> ParseText(std::string_view text, YamlTree* out, bool* more_documents,
                                       bool first_only) {
  *out = YamlTree();
  if (more_documents != nullptr) *more_documents = false;
  YamlTreeBuilder builder(out);
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    if (first_only) {
      parser.HandleNextDocument(builder);
    } else {
      while (!builder.issue() && parser.HandleNextDocument(builder)) {
      }
    }
  } catch (const YamlTreeBuilder::StopParsing&) {
    // A second document starts: only the first is used.
  } catch (const YAML::DeepRecursion& e) {
    builder.issue() = YamlTextIssue{
        e.mark.line + 1, e.mark.column + 1,
        absl::StrCat("nesting depth exceeds the YAML parser's limit (", e.depth(), " levels)"),
        e.msg};
  } catch (const YAML::Exception& e) {
    YamlTextIssue issue;
    if (e.mark.line >= 0) {
      issue.line = e.mark.line + 1;
      issue.column = e.mark.column + 1;
    }
    issue.message = absl::StrCat("YAML syntax error: ", e.msg);
    issue.parser_message = e.msg;
    builder.issue() = std::move(issue);
  } catch (const std::exception& e) {
    builder.issue() =
        YamlTextIssue{0, 0, absl::StrCat("cannot parse the YAML text: ", e.what()), e.what()};
  }
  if (more_documents != nullptr) *more_documents = builder.more_documents();
  if (builder.issue()) {
    *out = YamlTree();
    return builder.issue();
  }
  return std::nullopt;
}

// Runs a tree copier from `node`; its issue (a limit, or a yaml-cpp exception while reading
// the source) means no root.
template <typename Copier, typename Source>
std::optional<YamlTree::Id> RunCopier(Copier& copier, const Source& node) {
  try {
    YamlTree::Id root = copier.Copy(node, 1);
    if (!copier.issue) return root;
  } catch (const std::exception& e) {
    copier.issue = YamlTextIssue{0, 0, absl::StrCat("cannot read the YAML node: ", e.what())};
  }
  return std::nullopt;
}

}  // namespace

std::optional<YamlTextIssue> YamlTree::Parse(std::string_view text, YamlTree* out,
                                             bool* more_documents) {
  return ParseText(text, out, more_documents, /*first_only=*/false);
}

std::optional<YamlTextIssue> YamlTree::ParseFirstDocument(std::string_view text, YamlTree* out) {
  return ParseText(text, out, nullptr, /*first_only=*/true);
}

std::optional<YamlTextIssue> YamlTree::FromNode(const YAML::Node& node, YamlTree* out) {
  *out = YamlTree();
  // Depth-first copy with an explicit bound on depth and on the number of nodes produced,
  // so that cyclic or alias-heavy nodes cannot make it run away.
  struct Copier {
    YamlTree* tree;
    uint64_t budget;
    std::optional<YamlTextIssue> issue;

    YamlTree::Id Copy(const YAML::Node& n, int depth) {
      const YAML::Mark mark = n.Mark();
      if (issue) return YamlTree::kNone;
      if (depth > kMaxYamlDepth) {
        issue = YamlTextIssue{mark.line + 1, mark.column + 1,
                              absl::StrCat("nesting depth exceeds the limit of ", kMaxYamlDepth,
                                           " levels (a recursive alias?)")};
        return YamlTree::kNone;
      }
      if (budget-- == 0) {
        issue = YamlTextIssue{mark.line + 1, mark.column + 1,
                              "the document expands to too many nodes (aliases?)"};
        return YamlTree::kNone;
      }
      YamlTree::Id id = static_cast<YamlTree::Id>(tree->nodes_.size());
      YamlTree::Node& added = tree->nodes_.emplace_back();
      added.line = mark.line + 1;
      added.column = mark.column + 1;
      switch (n.Type()) {
        case YAML::NodeType::Scalar: {
          added.kind = YamlTree::Kind::kScalar;
          const std::string& value = n.Scalar();
          added.begin = tree->values_.size();
          added.size = value.size();
          tree->values_ += value;
          const std::string& tag = n.Tag();
          if (tag == "?" || tag.empty()) {
            added.style = YamlTree::Style::kPlain;
          } else if (tag == "!") {
            added.style = YamlTree::Style::kNonPlain;
          } else {
            added.style = YamlTree::Style::kTagged;
            tree->tags_.push_back(tag);
            added.tag = static_cast<uint32_t>(tree->tags_.size());
          }
          return id;
        }
        case YAML::NodeType::Sequence:
        case YAML::NodeType::Map: {
          bool map = n.Type() == YAML::NodeType::Map;
          added.kind = map ? YamlTree::Kind::kMapping : YamlTree::Kind::kSequence;
          std::vector<YamlTree::Id> items;
          for (auto it = n.begin(); it != n.end() && !issue; ++it) {
            if (map) {
              items.push_back(Copy(it->first, depth + 1));
              items.push_back(Copy(it->second, depth + 1));
            } else {
              items.push_back(Copy(*it, depth + 1));
            }
          }
          YamlTree::Node& self = tree->nodes_[id];
          self.begin = tree->children_.size();
          self.size = items.size();
          tree->children_.insert(tree->children_.end(), items.begin(), items.end());
          return id;
        }
        default:
          added.kind = YamlTree::Kind::kNull;
          return id;
      }
    }
  };
  Copier copier{out, uint64_t{16} << 20, std::nullopt};
  std::optional<Id> root = RunCopier(copier, node);
  if (!root) {
    *out = YamlTree();
    return copier.issue;
  }
  out->root_ = *root;
  return std::nullopt;
}

std::optional<YamlTextIssue> YamlTree::FromSubtree(const YamlTree& from, Id node, YamlTree* out) {
  *out = YamlTree();
  // FromNode's copy, node for node: the same pre-order, bounds and messages, so that a block
  // of a parsed text decodes as it did when it was first loaded as a YAML::Node.
  struct Copier {
    const YamlTree& from;
    YamlTree* tree;
    uint64_t budget;
    std::optional<YamlTextIssue> issue;

    YamlTree::Id Copy(YamlTree::Id n, int depth) {
      if (issue) return YamlTree::kNone;
      const YamlTree::Node& source = from.nodes_[n];
      if (depth > kMaxYamlDepth) {
        issue = YamlTextIssue{source.line, source.column,
                              absl::StrCat("nesting depth exceeds the limit of ", kMaxYamlDepth,
                                           " levels (a recursive alias?)")};
        return YamlTree::kNone;
      }
      if (budget-- == 0) {
        issue = YamlTextIssue{source.line, source.column,
                              "the document expands to too many nodes (aliases?)"};
        return YamlTree::kNone;
      }
      YamlTree::Id id = static_cast<YamlTree::Id>(tree->nodes_.size());
      YamlTree::Node& added = tree->nodes_.emplace_back();
      added.kind = source.kind;
      added.line = source.line;
      added.column = source.column;
      switch (source.kind) {
        case YamlTree::Kind::kScalar: {
          std::string_view value = from.scalar(n);
          added.begin = tree->values_.size();
          added.size = value.size();
          tree->values_ += value;
          std::string_view tag = from.tag(n);
          // FromNode reads an empty tag (`!<>`) as no tag at all.
          if (source.style == YamlTree::Style::kTagged && !tag.empty()) {
            added.style = YamlTree::Style::kTagged;
            tree->tags_.emplace_back(tag);
            added.tag = static_cast<uint32_t>(tree->tags_.size());
          } else if (source.style == YamlTree::Style::kNonPlain) {
            added.style = YamlTree::Style::kNonPlain;
          }
          return id;
        }
        case YamlTree::Kind::kSequence:
        case YamlTree::Kind::kMapping: {
          std::vector<YamlTree::Id> items;
          for (YamlTree::Id child : from.children(n)) {
            if (issue) break;
            items.push_back(Copy(child, depth + 1));
          }
          YamlTree::Node& self = tree->nodes_[id];
          self.begin = tree->children_.size();
          self.size = items.size();
          tree->children_.insert(tree->children_.end(), items.begin(), items.end());
          return id;
        }
        case YamlTree::Kind::kNull:
          break;
      }
      return id;
    }
  };
  Copier copier{from, out, uint64_t{16} << 20, std::nullopt};
  std::optional<Id> root = RunCopier(copier, node);
  if (!root) {
    *out = YamlTree();
    return copier.issue;
  }
  out->root_ = *root;
  return std::nullopt;
}

}  // namespace allocore::adapters::internal
