// kernel/src/name_rules.h — which strings YuniKorn accepts as queue, user and group names. One
// definition for the validator, the ACLs, the placement filters and the queues that placement
// rules create. `charset` is the release's: v1.2.0's, or the wider one of 1.6+ (YUNIKORN-1731,
// -2715). The ACL parser keeps v1.2.0's user and group sets in every release.
#ifndef ALLOCORE_KERNEL_SRC_NAME_RULES_H_
#define ALLOCORE_KERNEL_SRC_NAME_RULES_H_

#include <string_view>

namespace allocore::internal {

enum class NameCharset : bool { kV12, kWide };

// v1.2.0: ^[a-zA-Z0-9_-]{1,64}$          wide: ^[a-zA-Z0-9_:#/@-]{1,64}$
bool IsValidQueueName(std::string_view name, NameCharset charset = NameCharset::kV12);
// v1.2.0: ^[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?$  wide: ^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$
bool IsValidUserName(std::string_view name, NameCharset charset = NameCharset::kV12);
// v1.2.0: ^[_a-zA-Z][a-zA-Z0-9_-]*$        wide: ^[_a-zA-Z][a-zA-Z0-9:_.-]*$
bool IsValidGroupName(std::string_view name, NameCharset charset = NameCharset::kV12);

// What a message says a name may hold.
std::string_view QueueNameRule(NameCharset charset);
std::string_view UserNameRule(NameCharset charset);
std::string_view GroupNameRule(NameCharset charset);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_NAME_RULES_H_
