// The user and group limit rules of a configuration (semantics §2.4.8, Appendix A.2):
// duplicates, wildcard order, limits against their queue and against what the levels above
// carry for the same name, and partition limits against the root's.
#include "config_validator.h"

namespace allocore::config_validation {

void Validator::CheckLimits(const std::vector<LimitConfig>& limits, const std::string& path,
                            const QueueConfig* queue, bool partition_level) {
  absl::flat_hash_map<std::string, int> users_seen;
  absl::flat_hash_map<std::string, int> groups_seen;
  bool user_wildcard = false;
  bool group_wildcard = false;
  int first_group_wildcard = -1;  // index of the limit naming the wildcard group first
  for (size_t index = 0; index < limits.size(); ++index) {
    const LimitConfig& limit = limits[index];
    std::string name =
        limit.limit.empty() ? Cat("limit #", index + 1) : Cat("limit ", Quote(limit.limit));
    auto at = [&](std::string_view field) {
      return FieldLocation(limit.field_locations, field, limit.location);
    };
    if (limit.users.empty() && limit.groups.empty()) {
      Report(limit.location, path, "users",
             Cat("empty user and group lists defined in ", name,
                 ": a limit needs at least one user or group ('*' for everyone)"));
    }
    auto check_names = [&](const std::vector<std::string>& names, std::string_view field, bool user,
                           absl::flat_hash_map<std::string, int>& seen, bool& wildcard) {
      std::string_view kind = user ? "user" : "group";
      for (const std::string& entry : names) {
        if (entry == "*") {
          wildcard = true;
          if (!user && first_group_wildcard < 0) first_group_wildcard = static_cast<int>(index);
        } else {
          bool valid = user ? IsValidUserName(entry, charset_) : IsValidGroupName(entry, charset_);
          if (!valid) {
            Report(at(field), path, field,
                   Cat("invalid ", kind, " name ", Quote(entry), " in ", name, ": a ", kind,
                       " name matches ",
                       user ? internal::UserNameRule(charset_) : internal::GroupNameRule(charset_),
                       " or is '*'"));
          }
          if (wildcard) {
            Report(at(field), path, field,
                   Cat(kind, " ", Quote(entry), " in ", name, " follows the wildcard ", kind,
                       " '*': named ", kind, "s must come before the wildcard limit"));
          }
        }
        auto [it, inserted] = seen.emplace(entry, static_cast<int>(index));
        if (!inserted) {
          Report(
              at(field), path, field,
              Cat(kind, " ", Quote(entry), " appears more than once in the limits",
                  partition_level ? " of this partition" : " of this queue", " (", name,
                  it->second == static_cast<int>(index) ? "" : Cat(" and limit #", it->second + 1),
                  "): each ", kind, " may have one limit per queue"));
        }
      }
    };
    check_names(limit.users, "users", true, users_seen, user_wildcard);
    check_names(limit.groups, "groups", false, groups_seen, group_wildcard);

    OptionalResource max = quantities_.Convert(limit.max_resources);
    CheckNonNegative(limit.max_resources, limit.field_locations, limit.location, path,
                     "maxresources");
    if (limit.max_applications == 0 && IsNilOrZero(max)) {
      Report(max ? at("maxresources") : limit.location, path, "maxresources",
             Cat("invalid resource combination for ", name,
                 ": maxapplications is 0 and all resource limits are null or zero; "
                 "set maxapplications > 0 or at least one maxresources value > 0"));
    } else if (max && max->present != 0 && !StrictlyGreaterThanZero(*max)) {
      Report(at("maxresources"), path, "maxresources",
             Cat("maxresources ", quantities_.Format(*max), " of ", name,
                 " must be strictly positive: no negative value and at least one "
                 "value > 0"));
    }
    // The root's max is the cluster size (a configured one is already an error).
    if (queue != nullptr && !partition_level && max) {
      OptionalResource queue_max = quantities_.Convert(queue->resources.max);
      if (!FitsUnder(queue_max, *max)) {
        Report(at("maxresources"), path, "maxresources",
               Cat("maxresources ", quantities_.Format(*max), " of ", name,
                   " exceed the queue's max resources ", quantities_.Format(*queue_max),
                   "; a limit must fit within the queue's max"));
      }
    }
    if (queue != nullptr && queue->max_applications != 0 &&
        limit.max_applications > queue->max_applications) {
      Report(at("maxapplications"), path, "maxapplications",
             Cat("maxapplications ", limit.max_applications, " of ", name,
                 partition_level ? " exceeds the root queue's maxapplications "
                                 : " exceeds the queue's maxapplications ",
                 queue->max_applications, "; allowed: 1 to ", queue->max_applications,
                 partition_level ? " (partition limits apply to the root)" : ""));
    }
  }
  // A wildcard group limit caps the usage of all groups together. Without a named group
  // limit next to it every application's group is the wildcard one, so it would only repeat
  // the queue's own maximum; YuniKorn refuses that configuration.
  size_t named_groups = groups_seen.size() - (group_wildcard ? 1 : 0);
  if (first_group_wildcard >= 0 && named_groups == 0) {
    const LimitConfig& limit = limits[static_cast<size_t>(first_group_wildcard)];
    std::string name = limit.limit.empty() ? Cat("limit #", first_group_wildcard + 1)
                                           : Cat("limit ", Quote(limit.limit));
    Report(FieldLocation(limit.field_locations, "groups", limit.location), path, "groups",
           Cat("the wildcard group '*' in ", name, " is the only group limit",
               partition_level ? " of this partition" : Cat(" of queue ", path),
               ": add a limit for at least one named group before it, or limit the queue "
               "itself (maxapplications, resources.max)"));
  }
}

void Validator::CheckLimitHierarchy(const QueueConfig& queue,
                                    const std::vector<LimitConfig>& limits, const std::string& path,
                                    int depth, const CarriedLimits& parent) {
  const CarriedLimits* below = &parent;
  CarriedLimits own;
  if (!limits.empty()) {
    own.user_resources = parent.user_resources;
    own.group_resources = parent.group_resources;
    for (size_t index = 0; index < limits.size(); ++index) {
      const LimitConfig& limit = limits[index];
      for (const std::string& user : limit.users) {
        CheckAgainstParent(limit, index, "user", user, parent.user_resources,
                           parent.user_applications, path, &own.user_resources,
                           &own.user_applications);
      }
      for (const std::string& group : limit.groups) {
        CheckAgainstParent(limit, index, "group", group, parent.group_resources,
                           parent.group_applications, path, &own.group_resources,
                           &own.group_applications);
      }
    }
    below = &own;
  }
  if (depth >= kMaxQueueDepth) return;
  for (const QueueConfig& child : queue.queues) {
    CheckLimitHierarchy(child, child.limits, Cat(path, ".", Lower(child.name)), depth + 1, *below);
  }
}

void Validator::CheckAgainstParent(const LimitConfig& limit, size_t index, std::string_view kind,
                                   const std::string& entry,
                                   const Carried<CarriedResources>& parent_resources,
                                   const Carried<CarriedApplications>& parent_applications,
                                   const std::string& path, Carried<CarriedResources>* resources,
                                   Carried<CarriedApplications>* applications) {
  std::string who = Cat(kind, " ", Quote(entry));
  std::string name =
      limit.limit.empty() ? Cat("limit #", index + 1) : Cat("limit ", Quote(limit.limit));
  auto at = [&](std::string_view field) {
    return FieldLocation(limit.field_locations, field, limit.location);
  };

  OptionalResource max = quantities_.Convert(limit.max_resources);
  Resource own_max = max ? *max : Resource{};
  CarriedResources carried{own_max, path};
  if (auto it = parent_resources.find(entry); it != parent_resources.end()) {
    const CarriedResources& above = it->second;
    if (!FitInMaxUndef(above.max, own_max)) {
      Report(
          at("maxresources"), path, "maxresources",
          Cat("maxresources ", quantities_.Format(own_max), " of ", who, " in ", name,
              " exceed the maxresources ", quantities_.Format(above.max), " that ", above.from,
              " sets for ", who,
              ": a limit may not allow more than the parent queues' limits for the same ", kind));
    }
    carried.max = PermissiveMin(own_max, above.max);
    if (carried.max == above.max) carried.from = above.from;
  }
  (*resources)[entry] = std::move(carried);

  uint64_t own_apps = limit.max_applications;
  CarriedApplications carried_apps{own_apps, path};
  if (auto it = parent_applications.find(entry); it != parent_applications.end()) {
    const CarriedApplications& above = it->second;
    if (above.applications != 0 && own_apps == 0) {
      Report(at("maxapplications"), path, "maxapplications",
             Cat("maxapplications of ", who, " in ", name, " is unlimited (0) but ", above.from,
                 " allows at most ", above.applications, " for ", who,
                 ": set maxapplications from 1 to ", above.applications));
    } else if (above.applications != 0 && own_apps > above.applications) {
      Report(at("maxapplications"), path, "maxapplications",
             Cat("maxapplications ", own_apps, " of ", who, " in ", name, " exceeds the ",
                 above.applications, " that ", above.from, " allows for ", who, ": allowed: 1 to ",
                 above.applications));
    }
    carried_apps.applications = std::min(own_apps, above.applications);
    if (carried_apps.applications == above.applications) carried_apps.from = above.from;
  }
  (*applications)[entry] = std::move(carried_apps);
}

void Validator::CheckPartitionLimitsMatchRoot(const PartitionConfig& partition,
                                              const QueueConfig& root) {
  if (partition.limits.empty() || root.limits.empty()) return;
  auto resources = [this](const LimitConfig& l) {
    return quantities_.Convert(l.max_resources).value_or(Resource{});
  };
  std::string difference;
  size_t common = std::min(partition.limits.size(), root.limits.size());
  for (size_t i = 0; i < common && difference.empty(); ++i) {
    const LimitConfig& p = partition.limits[i];
    const LimitConfig& r = root.limits[i];
    std::string entry = Cat("entry #", i + 1, ": ");
    auto list = [](const std::vector<std::string>& v) {
      return Cat("[", absl::StrJoin(v, ", "), "]");
    };
    if (p.users != r.users) {
      difference = Cat(entry, "users ", list(p.users), " against ", list(r.users));
    } else if (p.groups != r.groups) {
      difference = Cat(entry, "groups ", list(p.groups), " against ", list(r.groups));
    } else if (p.max_applications != r.max_applications) {
      difference =
          Cat(entry, "maxapplications ", p.max_applications, " against ", r.max_applications);
    } else if (resources(p) != resources(r)) {
      difference = Cat(entry, "maxresources ", quantities_.Format(resources(p)), " against ",
                       quantities_.Format(resources(r)));
    }
  }
  if (difference.empty() && partition.limits.size() != root.limits.size()) {
    difference = Cat(partition.limits.size(), " entries against ", root.limits.size());
  }
  if (difference.empty()) return;
  Report(FieldLocation(partition.field_locations, "limits", partition.location), "", "limits",
         Cat("the partition limits and the limits of the root queue are both set but differ (",
             difference,
             "): partition limits apply to the root, so set them in one place or make "
             "both lists the same entries in the same order"));
}

}  // namespace allocore::config_validation
