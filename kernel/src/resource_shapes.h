// kernel/src/resource_shapes.h — one copy of each distinct ask resource, shared by id.
//
// Pods of one workload request the same resources, so a cluster with 100,000 pending asks has
// a few hundred distinct shapes. An ask's hot record holds a 4-byte shape id instead of a
// 72-byte Resource (kernel/README decision 35); the table stays small and cache-resident while
// the walk reads it. Shapes are reference-counted and their ids reused when the last ask of a
// shape goes, so the table is bounded by the live asks.
#ifndef ALLOCORE_KERNEL_SRC_RESOURCE_SHAPES_H_
#define ALLOCORE_KERNEL_SRC_RESOURCE_SHAPES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "allocore/resource.h"

namespace allocore::internal {

class ResourceShapes {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // The id of `resource`'s shape, with one more reference.
  uint32_t Acquire(const Resource& resource);
  // Drops one reference of `id` (kNone: nothing); the shape goes with its last one.
  void Release(uint32_t id);
  const Resource& Get(uint32_t id) const { return shapes_[id].resource; }

  size_t live() const { return ids_.size(); }
  // Every id in `references` (one entry per reference held) against the counts; false with
  // `why` on the first difference.
  bool CheckFromScratch(const std::vector<uint32_t>& references, std::string* why) const;
  // Whether `id` names a shape in the table (a restored ask's shape is checked before use).
  bool Holds(uint32_t id) const { return id < shapes_.size() && shapes_[id].references > 0; }

  // What a snapshot keeps (snapshot_fields.h): the shapes and the free ids; the index by
  // resource is rebuilt.
  template <typename A, typename Self>
  static void SnapshotFields(A& a, Self& self) {
    a(self.shapes_, self.free_);
    if constexpr (A::kReading) self.IndexShapes();
  }

 private:
  struct Shape {
    Resource resource;
    uint32_t references = 0;

    template <typename A, typename Self>
    static void SnapshotFields(A& a, Self& self) {
      a(self.resource, self.references);
    }
  };
  void IndexShapes();
  struct Hash {
    size_t operator()(const Resource& r) const { return absl::HashOf(r.value, r.present); }
  };
  std::vector<Shape> shapes_;
  std::vector<uint32_t> free_;
  absl::flat_hash_map<Resource, uint32_t, Hash> ids_;
};

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_RESOURCE_SHAPES_H_
