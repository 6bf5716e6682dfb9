// kernel/src/name_rules.h — which strings YuniKorn v1.2.0 accepts as queue, user and group
// names. One definition for the validator, the ACLs, the placement filters and the queues that
// placement rules create.
#ifndef ALLOCORE_KERNEL_SRC_NAME_RULES_H_
#define ALLOCORE_KERNEL_SRC_NAME_RULES_H_

#include <string_view>

namespace allocore::internal {

// ^[a-zA-Z0-9_-]{1,64}$
bool IsValidQueueName(std::string_view name);
// ^[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?$
bool IsValidUserName(std::string_view name);
// ^[_a-zA-Z][a-zA-Z0-9_-]*$
bool IsValidGroupName(std::string_view name);

}  // namespace allocore::internal

#endif  // ALLOCORE_KERNEL_SRC_NAME_RULES_H_
