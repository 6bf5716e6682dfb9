// adapters/config/yaml_tree_builder.h — internal: builds a YamlTree from parser events.
//
// yaml-cpp's event parser drives it for configs and whole scenarios; the streaming scenario
// reader drives it from libyaml's events, one tree per step.
#ifndef ALLOCORE_ADAPTERS_CONFIG_YAML_TREE_BUILDER_H_
#define ALLOCORE_ADAPTERS_CONFIG_YAML_TREE_BUILDER_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "yaml-cpp/anchor.h"
#include "yaml-cpp/emitterstyle.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/mark.h"
#include "yaml-cpp/yaml.h"
#include "yaml_tree.h"

namespace allocore::adapters::internal {

// Appends nodes to a YamlTree in document order, tracking open collections, anchors and the
// node counts that aliases add.
class YamlTreeBuilder final : public YAML::EventHandler {
 public:
  explicit YamlTreeBuilder(YamlTree* tree) : tree_(tree) {}

  std::optional<YamlTextIssue>& issue() { return issue_; }
  bool more_documents() const { return more_documents_; }

  // Thrown out of the parser to stop at the start of a second document.
  struct StopParsing {};

  void OnDocumentStart(const YAML::Mark&) override {
    if (++documents_ > 1) {
      more_documents_ = true;
      throw StopParsing{};
    }
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    YamlTree::Id id = Add(YamlTree::Kind::kNull, mark);
    Anchor(anchor, id, 1);
    Attach(id, 1);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (issue_) return;
    if (anchor >= anchors_.size() || anchors_[anchor].id == YamlTree::kNone) {
      Fail(mark, "an alias refers to an unknown anchor");
      return;
    }
    const AnchorInfo& info = anchors_[anchor];
    if (info.open) {
      Fail(mark,
           "an alias refers to an anchor whose node contains the alias (a self-referencing, "
           "recursive structure); aliases may only refer to complete nodes");
      return;
    }
    alias_nodes_ = Saturate(alias_nodes_ + info.nodes);
    if (alias_nodes_ > kMaxYamlAliasNodes) {
      Fail(mark, absl::StrCat("aliases expand the document by more than ", kMaxYamlAliasNodes,
                              " nodes: the limit protects against alias bombs"));
      return;
    }
    Attach(info.id, info.nodes);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    AddScalar(mark, tag, anchor, value);
  }

  // OnScalar without the strings yaml-cpp's interface needs: `tag` is "?" for a plain
  // scalar, "!" for a quoted or block one, else the explicit tag.
  void AddScalar(const YAML::Mark& mark, std::string_view tag, YAML::anchor_t anchor,
                 std::string_view value) {
    if (issue_) return;
    YamlTree::Id id = Add(YamlTree::Kind::kScalar, mark);
    YamlTree::Node& n = tree_->nodes_[id];
    n.begin = tree_->values_.size();
    n.size = value.size();
    tree_->values_.append(value.data(), value.size());
    if (tag == "?") {
      n.style = YamlTree::Style::kPlain;
    } else if (tag == "!") {
      n.style = YamlTree::Style::kNonPlain;
    } else {
      n.style = YamlTree::Style::kTagged;
      tree_->tags_.emplace_back(tag);
      n.tag = static_cast<uint32_t>(tree_->tags_.size());
    }
    Anchor(anchor, id, 1);
    Attach(id, 1);
  }

  // Starts over on an emptied tree (the same one), keeping the builder's storage.
  void Reset() {
    tree_->Clear();
    frames_.clear();
    pending_.clear();
    anchors_.clear();
    alias_nodes_ = 0;
    documents_ = 0;
    more_documents_ = false;
    issue_.reset();
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(YamlTree::Kind::kSequence, mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(YamlTree::Kind::kMapping, mark, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    YamlTree::Id id;
    size_t first_pending;   // index in pending_ of the first child
    uint64_t nodes;         // nodes in the subtree with aliases expanded
    YAML::anchor_t anchor;  // 0 = none
  };
  struct AnchorInfo {
    YamlTree::Id id = YamlTree::kNone;
    uint64_t nodes = 0;
    bool open = false;
  };

  static uint64_t Saturate(uint64_t v) { return std::min<uint64_t>(v, UINT64_MAX / 4); }

  void Fail(const YAML::Mark& mark, std::string message) {
    if (!issue_) issue_ = YamlTextIssue{mark.line + 1, mark.column + 1, std::move(message)};
  }

  YamlTree::Id Add(YamlTree::Kind kind, const YAML::Mark& mark) {
    YamlTree::Node& n = tree_->nodes_.emplace_back();
    n.kind = kind;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    return static_cast<YamlTree::Id>(tree_->nodes_.size() - 1);
  }

  void Anchor(YAML::anchor_t anchor, YamlTree::Id id, uint64_t nodes) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
    anchors_[anchor] = AnchorInfo{id, nodes, false};
  }

  // Adds `id` (a subtree of `nodes` nodes) to the innermost open collection, or makes it the
  // document root.
  void Attach(YamlTree::Id id, uint64_t nodes) {
    if (frames_.empty()) {
      if (tree_->root_ == YamlTree::kNone) tree_->root_ = id;
      return;
    }
    pending_.push_back(id);
    frames_.back().nodes = Saturate(frames_.back().nodes + nodes);
  }

  void Open(YamlTree::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (issue_) return;
    if (frames_.size() >= static_cast<size_t>(kMaxYamlDepth)) {
      Fail(mark, absl::StrCat("nesting depth exceeds the limit of ", kMaxYamlDepth, " levels"));
      return;
    }
    YamlTree::Id id = Add(kind, mark);
    if (anchor != YAML::NullAnchor) {
      if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
      anchors_[anchor] = AnchorInfo{id, 0, true};
    }
    frames_.push_back(Frame{id, pending_.size(), 1, anchor});
  }

  void Close() {
    if (issue_ || frames_.empty()) return;
    Frame frame = frames_.back();
    frames_.pop_back();
    YamlTree::Node& n = tree_->nodes_[frame.id];
    n.begin = tree_->children_.size();
    n.size = pending_.size() - frame.first_pending;
    tree_->children_.insert(tree_->children_.end(),
                            pending_.begin() + static_cast<std::ptrdiff_t>(frame.first_pending),
                            pending_.end());
    pending_.resize(frame.first_pending);
    if (frame.anchor != YAML::NullAnchor) {
      anchors_[frame.anchor] = AnchorInfo{frame.id, frame.nodes, false};
    }
    Attach(frame.id, frame.nodes);
  }

  YamlTree* tree_;
  std::vector<Frame> frames_;
  std::vector<YamlTree::Id> pending_;
  std::vector<AnchorInfo> anchors_;
  uint64_t alias_nodes_ = 0;
  int documents_ = 0;
  bool more_documents_ = false;
  std::optional<YamlTextIssue> issue_;
};

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_CONFIG_YAML_TREE_BUILDER_H_
