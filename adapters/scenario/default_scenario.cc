// The built-in default scenario of `allocore run`: the priority tree of
// YuniKorn's "App & Queue Priorities" design. Same config, node
// and asks as shared/scenarios/priority-tree.yaml; kept as text so that it goes through the
// same loader as every scenario file.
#include <string_view>

#include "allocore/adapters/scenario.h"

namespace allocore::adapters {
namespace {

constexpr std::string_view kPriorityTree = R"yaml(
name: priority-tree
config:
  partitions:
    - name: default
      queues:
        - name: root
          submitacl: "*"
          queues:
            - name: system
              queues:
                - name: system-normal
                  properties: {priority.offset: "0"}
                - name: system-high
                  properties: {priority.offset: "1000"}
                - name: system-low
                  properties: {priority.offset: "-1000"}
            - name: tenants
              properties: {priority.policy: "fence"}
              queues:
                - name: tenant-a
                  properties: {priority.policy: "fence", priority.offset: "10"}
                  queues:
                    - name: child-a-1
                    - name: child-a-2
                - name: tenant-b
                  properties: {priority.policy: "fence", priority.offset: "0"}
                  queues:
                    - name: child-b-1
                    - name: child-b-2
nodes:
  - id: node-1
    resources: {memory: 100000, vcore: 1000}
steps:
  - add_app: {id: app-high,   queue: root.system.system-high,    user: ops}
  - add_app: {id: app-normal, queue: root.system.system-normal,  user: ops}
  - add_app: {id: app-low,    queue: root.system.system-low,     user: ops}
  - add_app: {id: app-a1,     queue: root.tenants.tenant-a.child-a-1, user: alice}
  - add_app: {id: app-a2,     queue: root.tenants.tenant-a.child-a-2, user: alice}
  - add_app: {id: app-b1,     queue: root.tenants.tenant-b.child-b-1, user: bob}
  - add_app: {id: app-b2,     queue: root.tenants.tenant-b.child-b-2, user: bob}
  - add_ask: {app: app-high,   id: high-p1,   resources: {memory: 10, vcore: 1}, priority: 1}
  - add_ask: {app: app-normal, id: normal-p10, resources: {memory: 10, vcore: 1}, priority: 10}
  - add_ask: {app: app-normal, id: normal-p2, resources: {memory: 10, vcore: 1}, priority: 2}
  - add_ask: {app: app-low,    id: low-p3,    resources: {memory: 10, vcore: 1}, priority: 3}
  - add_ask: {app: app-a1,     id: a1-p8,     resources: {memory: 10, vcore: 1}, priority: 8}
  - add_ask: {app: app-a1,     id: a1-p5,     resources: {memory: 10, vcore: 1}, priority: 5}
  - add_ask: {app: app-a2,     id: a2-p6,     resources: {memory: 10, vcore: 1}, priority: 6}
  - add_ask: {app: app-a2,     id: a2-p4,     resources: {memory: 10, vcore: 1}, priority: 4}
  - add_ask: {app: app-b1,     id: b1-p9,     resources: {memory: 10, vcore: 1}, priority: 9}
  - add_ask: {app: app-b1,     id: b1-p7,     resources: {memory: 10, vcore: 1}, priority: 7}
  - add_ask: {app: app-b2,     id: b2-p8,     resources: {memory: 10, vcore: 1}, priority: 8}
  - schedule: {}
expect:
  allocations:
    - {app: app-high,   ask: high-p1}
    - {app: app-normal, ask: normal-p10}
    - {app: app-normal, ask: normal-p2}
    - {app: app-a1,     ask: a1-p8}
    - {app: app-a2,     ask: a2-p6}
    - {app: app-a1,     ask: a1-p5}
    - {app: app-a2,     ask: a2-p4}
    - {app: app-b1,     ask: b1-p9}
    - {app: app-b2,     ask: b2-p8}
    - {app: app-b1,     ask: b1-p7}
    - {app: app-low,    ask: low-p3}
  errors: 0
)yaml";

}  // namespace

std::string_view DefaultScenarioText() { return kPriorityTree; }

absl::StatusOr<Scenario> LoadDefaultScenario() {
  return LoadScenarioText(kPriorityTree, kDefaultScenarioSource);
}

}  // namespace allocore::adapters
