#include "resource_shapes.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace allocore::internal {

uint32_t ResourceShapes::Acquire(const Resource& resource) {
  auto [it, added] = ids_.try_emplace(resource, kNone);
  if (added) {
    if (free_.empty()) {
      it->second = static_cast<uint32_t>(shapes_.size());
      shapes_.push_back({.resource = resource});
    } else {
      it->second = free_.back();
      free_.pop_back();
      shapes_[it->second] = {.resource = resource};
    }
  }
  ++shapes_[it->second].references;
  return it->second;
}

void ResourceShapes::Release(uint32_t id) {
  if (id == kNone) return;
  Shape& shape = shapes_[id];
  if (--shape.references > 0) return;
  ids_.erase(shape.resource);
  free_.push_back(id);
}

void ResourceShapes::IndexShapes() {
  ids_.clear();
  for (uint32_t id = 0; id < shapes_.size(); ++id) {
    if (shapes_[id].references > 0) ids_.emplace(shapes_[id].resource, id);
  }
}

bool ResourceShapes::CheckFromScratch(const std::vector<uint32_t>& references,
                                      std::string* why) const {
  std::vector<uint32_t> counted(shapes_.size(), 0);
  for (uint32_t id : references) {
    if (id >= shapes_.size()) {
      *why = absl::StrCat("shape id ", id, " out of range");
      return false;
    }
    ++counted[id];
  }
  size_t live = 0;
  for (size_t id = 0; id < shapes_.size(); ++id) {
    if (counted[id] != shapes_[id].references) {
      *why = absl::StrCat("shape ", id, ": ", shapes_[id].references, " references counted, ",
                          counted[id], " held");
      return false;
    }
    if (counted[id] == 0) continue;
    ++live;
    auto it = ids_.find(shapes_[id].resource);
    if (it == ids_.end() || it->second != id) {
      *why = absl::StrCat("shape ", id, " is not found by its resource");
      return false;
    }
  }
  if (live != ids_.size()) {
    *why = absl::StrCat(ids_.size(), " shapes indexed, ", live, " referenced");
    return false;
  }
  // The free ids are exactly the unreferenced shapes, each once (a restored table is checked
  // here too: a free id still in use would be handed out twice).
  std::vector<bool> free(shapes_.size(), false);
  for (uint32_t id : free_) {
    if (id >= shapes_.size() || counted[id] != 0 || free[id]) {
      *why = absl::StrCat("free shape id ", id, " is out of range, referenced or listed twice");
      return false;
    }
    free[id] = true;
  }
  if (live + free_.size() != shapes_.size()) {
    *why = absl::StrCat(shapes_.size() - live, " shapes unreferenced, ", free_.size(), " free");
    return false;
  }
  return true;
}

}  // namespace allocore::internal
